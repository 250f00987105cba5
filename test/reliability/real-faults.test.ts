// Faults of the real backends, through the engine: a WebGPU device destroyed in the middle of a batch, a shader
// that fails to compile, an op past the device's buffer limits, a GPU op that hangs past its deadline, and
// 1,000 concurrent calls over real backends with injected faults. Each call must still return the right result
// (here: the WASM backend's, which the conformance suite holds to the reference), with every fallback and its
// cause in the telemetry and no unhandled rejection.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine, type Tensor } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultRate, faultSchedule } from '@tandem/testing';
import { WasmBackend } from '@tandem/wasm';
import { WebGpuBackend } from '@tandem/webgpu';
import { createNodeGpu, createNodeWebGpuBackend, createThrottledWaiter, useSwiftShader } from '@tandem/webgpu/node';

const gpuReady = useSwiftShader().ok;
let unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => void unhandled.push(e);

beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** Binds every function of a WebGPU object to it, so a Proxy can stand in for a native object. */
function passThrough<T extends object>(target: T, override: (prop: string | symbol) => unknown): T {
  return new Proxy(target, {
    get(t, prop) {
      const replaced = override(prop);
      if (replaced !== undefined) return replaced;
      const value: unknown = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
    set(t, prop, value) {
      return Reflect.set(t, prop, value, t); // native setters (onuncapturederror) need the real object as `this`
    },
  });
}

/** A GPU whose devices fail to compile the named shader (WGSL with a syntax error), as a driver bug would. */
function gpuWithBrokenShader(gpu: GPU, shaders: readonly string[]): GPU {
  const device = (real: GPUDevice): GPUDevice =>
    passThrough(real, (prop) =>
      prop === 'createShaderModule'
        ? (descriptor: GPUShaderModuleDescriptor) => real.createShaderModule(shaders.includes(descriptor.label ?? '') ? { ...descriptor, code: 'fn broken( {' } : descriptor)
        : undefined,
    );
  const adapter = (real: GPUAdapter): GPUAdapter =>
    passThrough(real, (prop) => (prop === 'requestDevice' ? async (d?: GPUDeviceDescriptor) => device(await real.requestDevice(d)) : undefined));
  return passThrough(gpu, (prop) =>
    prop === 'requestAdapter' ? async (o?: GPURequestAdapterOptions) => {
      const real = await gpu.requestAdapter(o);
      return real === null ? null : adapter(real);
    } : undefined,
  );
}

function matrix(engine: Engine, n: number, seed: number): { t: Tensor; host: Float32Array } {
  const host = Float32Array.from({ length: n * n }, (_, i) => ((i * 7 + seed * 13) % 17) - 8);
  return { t: engine.tensor(host, [n, n]), host };
}

function matmulHost(a: Float32Array, b: Float32Array, n: number): Float32Array {
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += (a[i * n + k] ?? 0) * (b[k * n + j] ?? 0);
    out[i * n + j] = s;
  }
  return out;
}

describe.skipIf(!gpuReady)('real backend faults through the engine', () => {
  it('a WebGPU device destroyed in the middle of a batch: every call answers, from WASM, with the loss in telemetry', async () => {
    const webgpu = createNodeWebGpuBackend();
    const engine = await Engine.create({ backends: [webgpu, new WasmBackend({ threads: 1 })], strategy: 'gpu-preferred', recoveryIntervalMs: 50 });
    const n = 64;
    const a = matrix(engine, n, 1);
    const b = matrix(engine, n, 2);
    const want = matmulHost(a.host, b.host, n); // small integers: exact in f32
    await (await engine.matmul(a.t, b.t)).read();
    const device = webgpu.currentDevice();
    if (device === undefined) throw new Error('no device');
    const batch = Array.from({ length: 24 }, () => engine.matmul(a.t, b.t).then((c) => c.read()));
    setTimeout(() => device.destroy(), 1);
    const results = await Promise.all(batch);
    for (const got of results) expect(got).toEqual(want);
    const lost = engine.telemetry.opEvents().filter((e) => e.backend === 'webgpu' && !e.ok);
    expect(lost.length).toBeGreaterThan(0);
    expect(lost[0]?.error).toMatch(/lost|destroyed/i);
    expect(engine.telemetry.opEvents().some((e) => e.reason.kind === 'error-fallback' && e.backend === 'wasm')).toBe(true);
    await engine.dispose();
  }, 60_000);

  it('a shader that fails to compile: the op falls back to WASM with the compile error as its cause, other ops stay on the GPU', async () => {
    const webgpu = new WebGpuBackend({ gpu: async () => gpuWithBrokenShader(await createNodeGpu(), ['matmul_f32', 'matmul_f32_vec4']), waiter: createThrottledWaiter() });
    const engine = await Engine.create({ backends: [webgpu, new WasmBackend({ threads: 1 })], strategy: 'gpu-preferred' });
    const n = 16;
    const a = matrix(engine, n, 3);
    const b = matrix(engine, n, 4);
    expect(await (await engine.matmul(a.t, b.t)).read()).toEqual(matmulHost(a.host, b.host, n));
    const events = engine.telemetry.opEvents();
    expect(events[0]).toMatchObject({ backend: 'webgpu', ok: false });
    expect(events[0]?.error).toMatch(/shader|pipeline|invalid|error/i);
    expect(events[1]).toMatchObject({ backend: 'wasm', ok: true, reason: { kind: 'error-fallback', failed: 'webgpu' } });
    await (await engine.scale(a.t, 2)).read();
    expect(engine.telemetry.opEvents().at(-1)).toMatchObject({ op: 'scale', backend: 'webgpu', ok: true });
    await engine.dispose();
  }, 60_000);

  it("an op past the GPU's buffer limits is refused with the limit named, and runs on WASM", async () => {
    const webgpu = createNodeWebGpuBackend();
    const engine = await Engine.create({ backends: [webgpu, new WasmBackend({ threads: 1 })], strategy: 'gpu-preferred' });
    const limit = webgpu.describe().maxStorageBufferBindingSize;
    const count = Math.floor(limit / 4) + 1024;
    const x = engine.tensor(new Float32Array(count).fill(1.5), [count]);
    const plan = engine.explain({ op: 'scale', x, factor: 2 });
    expect(plan.selection.backend).toBe('wasm');
    expect(plan.skipped.find((s) => s.backend === 'webgpu')?.reason).toMatch(/limit|max|binding|too large|exceeds/i);
    const values = await (await engine.scale(x, 2)).read();
    expect(values[0]).toBe(3);
    expect(values[count - 1]).toBe(3);
    await engine.dispose();
  }, 120_000);

  it('a GPU op that hangs past its deadline is abandoned and re-run on WASM', async () => {
    const hanging = new FaultInjectingBackend(createNodeWebGpuBackend(), faultSchedule({ 2: 'hang' }));
    const engine = await Engine.create({ backends: [hanging, new WasmBackend({ threads: 1 })], strategy: 'gpu-preferred', opDeadlineMs: 300 });
    const n = 16;
    const a = matrix(engine, n, 5);
    const want = matmulHost(a.host, a.host, n);
    expect(await (await engine.matmul(a.t, a.t)).read()).toEqual(want);
    const started = performance.now();
    expect(await (await engine.matmul(a.t, a.t)).read()).toEqual(want);
    expect(performance.now() - started).toBeLessThan(5000);
    const [failed, rescued] = engine.telemetry.opEvents().slice(-2);
    expect(failed).toMatchObject({ backend: 'webgpu', ok: false });
    expect(failed?.error).toMatch(/deadline|300/);
    expect(rescued).toMatchObject({ backend: 'wasm', ok: true, reason: { kind: 'error-fallback' } });
    await engine.dispose();
  }, 60_000);

  it('1,000 concurrent calls over WASM, WebGPU and the reference with 5% faults: all right, counts consistent', async () => {
    const gpu = new FaultInjectingBackend(createNodeWebGpuBackend(), faultRate(0.05, ['throw', 'reject', 'oom'], 3));
    const cpu = new FaultInjectingBackend(new WasmBackend({ threads: 1 }), faultRate(0.05, ['throw', 'reject', 'oom'], 4));
    const engine = await Engine.create({ backends: [gpu, cpu, new ReferenceBackend({ fallbackOnly: true })], tracker: { successRateThreshold: 0.5 } });
    const n = 8;
    const inputs = Array.from({ length: 10 }, (_, s) => matrix(engine, n, s));
    const strategies = ['auto', 'gpu-preferred', 'cpu-preferred'] as const;
    const calls = Array.from({ length: 1000 }, (_, i) => {
      const a = inputs[i % 10];
      const b = inputs[(i * 3 + 1) % 10];
      if (a === undefined || b === undefined) throw new Error('no input');
      return engine.run({ op: 'matmul', a: a.t, b: b.t }, strategies[i % 3]).then(async ([c]) => ({ i, got: await c?.read(), a, b }));
    });
    for (const { got, a, b } of await Promise.all(calls)) expect(got).toEqual(matmulHost(a.host, b.host, n));
    const injected = gpu.totalInjected + cpu.totalInjected;
    const summary = engine.telemetry.summary();
    expect(injected).toBeGreaterThan(20);
    expect(summary.totalOps).toBe(1000);
    expect(summary.totalFailures).toBe(injected);
    const stats = engine.trackerStats();
    expect(stats.reduce((s, x) => s + x.successes, 0)).toBe(1000);
    expect(stats.reduce((s, x) => s + x.failures, 0)).toBe(injected);
    await engine.dispose();
  }, 120_000);
});
