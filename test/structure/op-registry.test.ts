// The op registry's shape, checked from the tree: one definition file per op in core, and one naming rule for every
// kernel file in every backend: the op id in snake_case (kernelName: rmsNorm -> rms_norm), optionally followed by
// `_<variant>` (a dtype, a format or an implementation: matmul_f32_vec4.wgsl, quantized_matmul_q8act.hip). Files
// that are no op's kernel (helpers, conversions, HNSW search) live in a `shared/` folder, or are C++ headers.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kernelName, OP_DEFINITIONS, OP_KINDS } from '@tandem/core';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every folder of kernel files, with the extension its kernels have. */
const KERNEL_FOLDERS: ReadonlyArray<readonly [string, string]> = [
  ['packages/core/src/ops', '.ts'],
  ['packages/reference/src/kernels', '.ts'],
  ['packages/wasm/src/kernels', '.ts'],
  ['packages/webgpu/src/kernels', '.ts'],
  ['packages/rocm/src/kernels', '.ts'],
  ['wasm-kernels', '.ts'],
  ['wgsl', '.wgsl'],
  ['native-rocm/kernels', '.hip'],
];

const NAMES = OP_KINDS.map(kernelName);

/** Whether a file name (without its extension) is an op's kernel name, or one followed by `_<variant>`. */
function followsRule(base: string): boolean {
  return NAMES.some((name) => base === name || base.startsWith(`${name}_`));
}

describe('one naming rule for kernel files', () => {
  it.each(KERNEL_FOLDERS)(
    '%s: every kernel file is named after an op id (snake_case, optional _<variant>)',
    (folder, ext) => {
      const files = readdirSync(ROOT + folder, { withFileTypes: true }).filter(
        (f) => f.isFile() && f.name.endsWith(ext) && !f.name.endsWith(`.test${ext}`),
      );
      const offenders = files
        .map((f) => f.name.slice(0, -ext.length))
        .filter((base) => base !== 'index' && !followsRule(base));
      expect(offenders).toEqual([]);
    },
  );

  it('every op has its definition in packages/core/src/ops/<op_id>.ts and its reference kernel in packages/reference/src/kernels/<op_id>.ts', () => {
    for (const folder of ['packages/core/src/ops', 'packages/reference/src/kernels']) {
      const files = new Set(readdirSync(ROOT + folder));
      expect(
        NAMES.filter((name) => !files.has(`${name}.ts`)),
        folder,
      ).toEqual([]);
    }
  });
});

describe('the op definitions', () => {
  it('are keyed by their own id, each with a one-line doc', () => {
    for (const [key, definition] of Object.entries(OP_DEFINITIONS)) {
      expect(definition.id).toBe(key);
      expect(definition.doc, key).toMatch(/^[^\n]+\.$/);
      expect(definition.inputNames.length, key).toBeGreaterThan(0);
    }
  });
});
