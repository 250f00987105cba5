// The WGSL files are the source of truth: the kernel specs are reflected from them at embed time. Checked here: the
// reflection itself (includes, the binding rules), each shader's header comment against what it declares, that
// wgsl-kernels.generated.ts is current, that every unary op has its shader, and on a device that every kernel
// builds with its explicit layout.
import { readFileSync } from 'node:fs';
import { UNARY_OP_KINDS } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { KernelSpec } from './kernel-spec.ts';
import { unarySpec } from './kernel-support.ts';
import { PipelineCache } from './pipeline-cache.ts';
import { createTestBackend } from './test-support/gpu.ts';
import { embedKernels, GENERATED_MODULE, readWgslFiles, renderWgslModule } from './tools/embed-wgsl.ts';
import { expandIncludes, reflectKernel } from './tools/wgsl-reflect.ts';
import { WGSL_KERNELS } from './wgsl-kernels.generated.ts';

const ALL_KERNELS: readonly KernelSpec[] = Object.values(WGSL_KERNELS);

/** Bindings listed in the header comment: `//   @binding(n) name  storage, read|read_write | uniform`. */
function headerBindings(code: string): Array<[number, string, string]> {
  const pattern = /^\/\/\s+@binding\((\d+)\)\s+(\w+)\s+(storage, read_write|storage, read|uniform)\b/gm;
  return [...code.matchAll(pattern)].map((m) => [Number(m[1]), m[2] ?? '', m[3] ?? '']);
}

function expectedHeader(spec: KernelSpec): Array<[number, string, string]> {
  const storage = spec.bindings.map((b, i): [number, string, string] => [i, b.name, `storage, ${b.access}`]);
  return [...storage, [spec.bindings.length, 'params', 'uniform']];
}

const KERNEL = (bindings: string, params = 'n: u32,'): string =>
  `struct Params {\n  ${params}\n}\n${bindings}\n@compute @workgroup_size(64)\nfn main() {}\n`;

describe('WGSL reflection (the embed step)', () => {
  it('reads the entry point, storage bindings in order, the Params fields and the overrides', () => {
    const code = `override WG: u32 = 64u;\n${KERNEL('@group(0) @binding(0) var<storage, read> x: array<f32>;\n@group(0) @binding(1) var<storage, read_write> out: array<f32>;\n@group(0) @binding(2) var<uniform> params: Params;', 'n: u32,\n  f: f32,')}`;
    expect(reflectKernel('k.wgsl', code)).toEqual({
      entryPoint: 'main',
      bindings: [
        { name: 'x', access: 'read' },
        { name: 'out', access: 'read_write' },
      ],
      params: [
        { name: 'n', type: 'u32' },
        { name: 'f', type: 'f32' },
      ],
      overrides: ['WG'],
    });
  });

  it('refuses another group, storage bindings out of order, a missing or misplaced params uniform, other field types', () => {
    const uniform = '@group(0) @binding(1) var<uniform> params: Params;';
    expect(() =>
      reflectKernel('a.wgsl', KERNEL(`@group(1) @binding(0) var<storage, read> x: array<f32>;\n${uniform}`)),
    ).toThrow(/a\.wgsl: x is in @group\(1\)/);
    expect(() =>
      reflectKernel('b.wgsl', KERNEL(`@group(0) @binding(1) var<storage, read> x: array<f32>;\n${uniform}`)),
    ).toThrow(/b\.wgsl: storage binding x is @binding\(1\); expected 0/);
    expect(() => reflectKernel('c.wgsl', KERNEL('@group(0) @binding(0) var<storage, read> x: array<f32>;'))).toThrow(
      /c\.wgsl: needs 'var<uniform> params: Params' at @binding\(1\)/,
    );
    expect(() =>
      reflectKernel(
        'd.wgsl',
        KERNEL(`@group(0) @binding(0) var<storage, read> x: array<f32>;\n${uniform}`, 'v: vec2f,'),
      ),
    ).toThrow(/d\.wgsl: Params\.v is vec2f/);
  });

  it('expands includes recursively, each file once', () => {
    const files = new Map([
      ['shared/a.wgsl', '//! include shared/b.wgsl\nfn a() {}'],
      ['shared/b.wgsl', 'fn b() {}'],
    ]);
    const read = (path: string): string => files.get(path) ?? '';
    expect(expandIncludes('k.wgsl', '//! include shared/a.wgsl\n//! include shared/b.wgsl\nfn k() {}', read)).toBe(
      'fn b() {}\nfn a() {}\n// (shared/b.wgsl included above)\nfn k() {}',
    );
    expect(() =>
      expandIncludes('k.wgsl', '//! include shared/none.wgsl', () => {
        throw new Error('missing');
      }),
    ).toThrow(/k\.wgsl: cannot read the included file shared\/none\.wgsl/);
  });
});

describe('the embedded kernels', () => {
  it.each(ALL_KERNELS.map((k) => [k.shader, k] as const))(
    '%s: its header comment lists the bindings it declares',
    (_name, spec) => {
      expect(headerBindings(spec.source)).toEqual(expectedHeader(spec));
    },
  );

  it('wgsl-kernels.generated.ts is current (run `npm run embed-wgsl -w @tandem/webgpu` if not)', () => {
    expect(readFileSync(GENERATED_MODULE, 'utf8')).toBe(renderWgslModule(embedKernels(readWgslFiles())));
  });

  it('every unary elementwise op has its shader, with the family interface (x, out, params n, override WG)', () => {
    expect(UNARY_OP_KINDS.filter((kind) => unarySpec(kind) === undefined)).toEqual([]);
  });
});

const setup = await createTestBackend();
afterAll(async () => {
  if (setup.ok) await setup.backend.dispose();
});

describe.skipIf(!setup.ok)('every kernel builds on the device with its explicit layout', () => {
  it('creates all pipelines without validation errors', async () => {
    if (!setup.ok) return;
    const device = setup.backend.currentDevice();
    if (device === undefined) throw new Error('no device');
    const cache = new PipelineCache(device);
    device.pushErrorScope('validation');
    for (const spec of ALL_KERNELS) cache.get(spec, {});
    const error = await device.popErrorScope();
    expect(error?.message ?? null).toBeNull();
    expect(cache.size).toBe(ALL_KERNELS.length);
  });
});
