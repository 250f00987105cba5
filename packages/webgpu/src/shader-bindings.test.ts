// The WGSL files are the source of truth: their declared bindings, uniform struct and overrides must match
// the TypeScript kernel specs, their header comments must list the bindings, and the embedded copy in
// wgsl-sources.generated.ts must be current. On a device, every kernel must build with its explicit layout.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { KernelSpec } from './kernel-spec.ts';
import { ALL_KERNELS } from './kernels.ts';
import { GENERATED_MODULE, readWgslFiles, renderWgslModule } from './tools/embed-wgsl.ts';
import { WGSL_SOURCES } from './wgsl-sources.generated.ts';
import { createTestBackend } from './test-support/gpu.ts';
import { PipelineCache } from './pipeline-cache.ts';

interface DeclaredBinding {
  readonly group: number;
  readonly binding: number;
  readonly kind: 'storage' | 'uniform';
  readonly access: string | undefined;
  readonly name: string;
  readonly type: string;
}

/** Every `@group(g) @binding(b) var<...> name: type;` in a shader. */
function declaredBindings(code: string): DeclaredBinding[] {
  const pattern = /@group\((\d+)\)\s*@binding\((\d+)\)\s*var<(storage|uniform)(?:\s*,\s*(read|read_write))?>\s*(\w+)\s*:\s*([^;]+);/g;
  return [...code.matchAll(pattern)].map((m) => ({
    group: Number(m[1]),
    binding: Number(m[2]),
    kind: m[3] === 'uniform' ? 'uniform' : 'storage',
    access: m[4],
    name: m[5] ?? '',
    type: (m[6] ?? '').trim(),
  }));
}

/** Fields of `struct Params { ... }` as [name, type]. */
function paramsFields(code: string): Array<[string, string]> {
  const body = /struct\s+Params\s*\{([^}]*)\}/.exec(code)?.[1] ?? '';
  return [...body.matchAll(/(\w+)\s*:\s*(\w+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']);
}

/** Bindings listed in the header comment: `//   @binding(n) name  storage, read|read_write | uniform`. */
function headerBindings(code: string): Array<[number, string, string]> {
  const pattern = /^\/\/\s+@binding\((\d+)\)\s+(\w+)\s+(storage, read_write|storage, read|uniform)\b/gm;
  return [...code.matchAll(pattern)].map((m) => [Number(m[1]), m[2] ?? '', m[3] ?? '']);
}

function overrideNames(code: string): string[] {
  return [...code.matchAll(/^override\s+(\w+)\s*:/gm)].map((m) => m[1] ?? '');
}

function expectedHeader(spec: KernelSpec): Array<[number, string, string]> {
  const storage = spec.bindings.map((b, i): [number, string, string] => [i, b.name, `storage, ${b.access}`]);
  return [...storage, [spec.bindings.length, 'params', 'uniform']];
}

describe('WGSL kernels match their TypeScript specs', () => {
  it.each(ALL_KERNELS.map((k) => [k.shader, k] as const))('%s', (_name, spec) => {
    const code = WGSL_SOURCES[spec.shader];
    const declared = declaredBindings(code);
    expect(declared.every((d) => d.group === 0)).toBe(true);
    const storage = declared.filter((d) => d.kind === 'storage').map((d) => [d.binding, d.name, d.access]);
    expect(storage).toEqual(spec.bindings.map((b, i) => [i, b.name, b.access]));
    const uniforms = declared.filter((d) => d.kind === 'uniform').map((d) => [d.binding, d.name, d.type]);
    expect(uniforms).toEqual([[spec.bindings.length, 'params', 'Params']]);
    expect(paramsFields(code)).toEqual(spec.params.map((p) => [p.name, p.type]));
    expect(headerBindings(code)).toEqual(expectedHeader(spec));
    const overrides = overrideNames(code);
    for (const name of spec.overrides) expect(overrides).toContain(name);
    expect(code).toMatch(new RegExp(`@compute\\s+@workgroup_size\\([^)]*\\)\\s*fn\\s+${spec.entryPoint}\\s*\\(`));
  });

  it('every file in wgsl/ has a kernel spec', () => {
    const used = new Set<string>(ALL_KERNELS.map((k) => k.shader));
    expect([...readWgslFiles().keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  it('wgsl-sources.generated.ts is current (run `npm run embed-wgsl -w @tandem/webgpu` if not)', () => {
    expect(readFileSync(GENERATED_MODULE, 'utf8')).toBe(renderWgslModule(readWgslFiles()));
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
