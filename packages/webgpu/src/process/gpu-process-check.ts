// Standalone check of WebGPU in a GPU process on a real GPU (or SwiftShader with --swiftshader): matmuls up to
// n = 4096 (dawn.node aborted in-process at n >= 2048 on the H100), each result spot-checked against float64
// dot products; a crash of the GPU process is reported with its cause and the next size runs on a new one.
// With --kill-test, a real SIGKILL of the GPU process mid-batch and the recovery after it.
// Then the IPC costs: round trip, and 16 MiB each way through the GPU process and in this process.
// Prints one JSON object per line. Bundled for plain Node (no tsx): see README.md in this folder.
import type { CapableBackend, DeviceBuffer, TensorSpec } from '@tandem/core';
import { createNodeWebGpuBackend } from '../node-gpu.ts';
import { useSwiftShader } from '../swiftshader.ts';
import { createProcessWebGpuBackend } from './process-backend.ts';

const swiftShader = process.argv.includes('--swiftshader');
const sizes = (process.argv.find((a) => a.startsWith('--sizes='))?.slice(8) ?? '256,1024,2048,4096').split(',').map(Number);
const iterations = Number(process.argv.find((a) => a.startsWith('--iterations='))?.slice(13) ?? 5);
if (swiftShader && !useSwiftShader().ok) throw new Error('SwiftShader not found');

function report(record: Record<string, unknown>): void {
  console.log(JSON.stringify(record));
}

/** Deterministic values in [-1, 1). */
function values(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}

/** Largest relative error of 64 sampled entries of a x b against float64 dot products. */
function spotCheck(a: Float32Array, b: Float32Array, c: Float32Array, n: number): number {
  let worst = 0;
  for (let s = 0; s < 64; s++) {
    const i = (s * 7919) % n;
    const j = (s * 104729) % n;
    let dot = 0;
    let scale = 0;
    for (let k = 0; k < n; k++) {
      const term = (a[i * n + k] ?? 0) * (b[k * n + j] ?? 0);
      dot += term;
      scale += Math.abs(term);
    }
    worst = Math.max(worst, Math.abs((c[i * n + j] ?? 0) - dot) / Math.max(scale, 1e-30));
  }
  return worst;
}

const proxy = createProcessWebGpuBackend({ swiftShader });
const t0 = performance.now();
const init = await proxy.init();
report({ step: 'init', ...init, ms: performance.now() - t0, device: proxy.describe().name, pingMs: proxy.roundTripMs() });
if (!init.ok) process.exit(1);

let crashes = 0;
for (const n of sizes) {
  const spec: TensorSpec = { dtype: 'f32', shape: [n, n] };
  const a = values(n * n, n);
  const b = values(n * n, n + 1);
  try {
    if (proxy.health().state !== 'healthy') {
      const again = await proxy.init();
      report({ step: 'restart', n, ...again, processId: proxy.processId() });
    }
    const bufA = await proxy.upload(new Uint8Array(a.buffer), spec);
    const bufB = await proxy.upload(new Uint8Array(b.buffer), spec);
    const bound = { a: { ...spec, buffer: bufA }, b: { ...spec, buffer: bufB } };
    const times: number[] = [];
    let last: DeviceBuffer | undefined;
    for (let it = 0; it < iterations; it++) {
      const start = performance.now();
      const result = await proxy.run({ op: 'matmul', ...bound }, [spec]);
      times.push(performance.now() - start);
      if (last !== undefined) proxy.free(last);
      last = result.outputs[0];
    }
    if (last === undefined) throw new Error('no output');
    const bytes = await proxy.download(last);
    const c = new Float32Array(bytes.buffer, bytes.byteOffset, n * n);
    times.sort((x, y) => x - y);
    const median = times[Math.floor(times.length / 2)] ?? NaN;
    report({ step: 'matmul', n, ok: true, medianMs: median, tflops: (2 * n ** 3) / (median * 1e9), maxRelError: spotCheck(a, b, c, n), processId: proxy.processId() });
    for (const buffer of [bufA, bufB, last]) proxy.free(buffer);
  } catch (error) {
    crashes++;
    report({ step: 'matmul', n, ok: false, error: String(error), health: proxy.health() });
  }
}

// A real SIGKILL of the GPU process while a batch of runs is queued: the queued runs must reject with a
// DeviceLostError naming the signal, and the next init() must bring up a new process that computes correctly.
if (process.argv.includes('--kill-test')) {
  const n = sizes.at(-1) ?? 1024;
  const spec: TensorSpec = { dtype: 'f32', shape: [n, n] };
  const a = values(n * n, 7);
  const up = await proxy.upload(new Uint8Array(a.buffer), spec);
  const op = { op: 'matmul' as const, a: { ...spec, buffer: up }, b: { ...spec, buffer: up } };
  await proxy.run(op, [spec]);
  const pid = proxy.processId() ?? -1;
  const batch = Array.from({ length: 16 }, () => proxy.run(op, [spec]));
  await Promise.race(batch);
  process.kill(pid, 'SIGKILL');
  const outcomes = await Promise.allSettled(batch);
  const rejected = outcomes.filter((o) => o.status === 'rejected').map((o) => (o.status === 'rejected' ? String(o.reason) : ''));
  const restart = await proxy.init();
  const again = await proxy.upload(new Uint8Array(a.buffer), spec);
  const result = await proxy.run({ op: 'matmul', a: { ...spec, buffer: again }, b: { ...spec, buffer: again } }, [spec]);
  const out = result.outputs[0];
  const bytes = out === undefined ? new Uint8Array(0) : await proxy.download(out);
  report({
    step: 'kill test',
    n,
    fulfilled: outcomes.length - rejected.length,
    rejected: rejected.length,
    firstRejection: rejected[0],
    restart,
    oldPid: pid,
    newPid: proxy.processId(),
    maxRelErrorAfterRestart: spotCheck(a, a, new Float32Array(bytes.buffer, bytes.byteOffset, n * n), n),
  });
}

/** Median of timed calls, ms. */
async function medianMs(runs: number, fn: () => Promise<void>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)] ?? NaN;
}

async function transfers(backend: CapableBackend, where: string): Promise<void> {
  if (!(await backend.init()).ok) return;
  const big: TensorSpec = { dtype: 'f32', shape: [4 * 1024 * 1024] };
  const bytes = new Uint8Array(16 * 1024 * 1024).fill(1);
  let held: DeviceBuffer | undefined;
  const upload = await medianMs(7, async () => {
    if (held !== undefined) backend.free(held);
    held = await backend.upload(bytes, big);
  });
  const buffer = held;
  if (buffer === undefined) return;
  const download = await medianMs(7, async () => {
    await backend.download(buffer);
  });
  backend.free(buffer);
  report({ step: 'transfer 16 MiB', where, uploadMs: upload, downloadMs: download });
}

await transfers(proxy, 'GPU process');
const ping = await medianMs(500, async () => {
  await proxy.init();
});
report({ step: 'round trip', perRequestUs: (ping / 2) * 1000 });
await proxy.dispose();
report({ step: 'summary', crashes, processExitedOnDispose: proxy.processId() === undefined });
// Last: in this process (a native crash here ends the check, which is the point of the GPU process).
const inProcess = createNodeWebGpuBackend();
await transfers(inProcess, 'in-process');
await inProcess.dispose();
