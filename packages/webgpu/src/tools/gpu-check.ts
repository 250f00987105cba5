// A standalone check for a real GPU machine (no vitest there): op correctness against the JS references,
// matmul and quantized-matmul speed, and main-thread CPU while waiting. Bundle it with `webgpu` external:
//   npx esbuild packages/webgpu/src/tools/gpu-check.ts --bundle --platform=node --format=esm \
//     --external:webgpu --outfile=packages/webgpu/dist/gpu-check.mjs
// then run `node gpu-check.mjs <correctness|perf|wait|big> [--swiftshader]`; prints one JSON object.
import { inferOutputs, mapOpTensors, type BoundTensor, type Op, type TensorSpec } from '@tandem/core';
import type { WebGpuBackend } from '../backend.ts';
import { createNodeWebGpuBackend } from '../node-gpu.ts';
import { useSwiftShader } from '../swiftshader.ts';
import { directWaiter } from '../waiter.ts';
import { createRandom, expectClose, randomF32 } from '../test-support/random.ts';
import { upload, run, readF32, readI32 } from '../test-support/gpu.ts';
import * as ref from '../test-support/reference.ts';
import { mainThreadCpuMs } from '../test-support/thread-cpu.ts';

type Json = Record<string, unknown>;

async function makeBackend(direct = false): Promise<WebGpuBackend> {
  const pool = { maxPooledBytes: 2 ** 31 };
  const backend = createNodeWebGpuBackend(direct ? { ...pool, waiter: directWaiter } : pool);
  const init = await backend.init();
  if (!init.ok) throw new Error(init.reason);
  return backend;
}

async function single(backend: WebGpuBackend, op: Op<BoundTensor>): Promise<Float32Array> {
  const [out] = await run(backend, op);
  if (out === undefined) throw new Error('no output');
  const values = await readF32(backend, out);
  backend.free(out.buffer);
  return values;
}

async function correctness(backend: WebGpuBackend): Promise<Json> {
  const results: Json = {};
  const check = async (name: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
      results[name] = 'ok';
    } catch (error) {
      results[name] = error instanceof Error ? error.message : String(error);
    }
  };
  for (const [m, k, n] of [[1, 1, 1], [3, 7, 17], [65, 33, 17], [64, 64, 64], [130, 68, 72], [257, 129, 255], [512, 512, 512]] as const) {
    await check(`matmul ${m}x${k}x${n}`, async () => {
      const a = randomF32(m * k, m + k);
      const b = randomF32(k * n, n + k);
      const got = await single(backend, { op: 'matmul', a: await upload(backend, 'f32', [m, k], a), b: await upload(backend, 'f32', [k, n], b) });
      expectClose(got, ref.refMatmul(a, b, m, k, n), 1e-4, 1e-4, 'matmul');
    });
  }
  for (const dtype of ['q8_0', 'q4_0'] as const) {
    for (const [m, kb, n] of [[1, 3, 7], [5, 7, 65], [17, 8, 33]] as const) {
      await check(`quantizedMatmul ${dtype} ${m}x${kb * 32}x${n}`, async () => {
        const k = kb * 32;
        const x = randomF32(m * k, m);
        const bytes = (dtype === 'q8_0' ? ref.quantizeQ8_0 : ref.quantizeQ4_0)(randomF32(n * k, n));
        const w = ref.refDequantize(bytes, dtype, n * k);
        const wT = new Float32Array(k * n);
        for (let r = 0; r < n; r++) for (let c = 0; c < k; c++) wT[c * n + r] = w[r * k + c] ?? 0;
        const got = await single(backend, { op: 'quantizedMatmul', x: await upload(backend, 'f32', [m, k], x), w: await upload(backend, dtype, [n, k], bytes) });
        expectClose(got, ref.refMatmul(x, wT, m, k, n), 1e-4, 1e-4, 'qmatmul');
      });
    }
  }
  await check('softmax causal 3x17x33', async () => {
    const x = randomF32(3 * 17 * 33, 1, 5);
    const got = await single(backend, { op: 'softmax', x: await upload(backend, 'f32', [3, 17, 33], x), causal: true });
    expectClose(got, ref.refSoftmax(x, 3 * 17, 33, 17, true), 1e-6, 1e-5, 'softmax');
  });
  await check('rmsNorm 7x1000', async () => {
    const x = randomF32(7000, 2);
    const w = randomF32(1000, 3);
    const got = await single(backend, { op: 'rmsNorm', x: await upload(backend, 'f32', [7, 1000], x), weight: await upload(backend, 'f32', [1000], w), eps: 1e-5 });
    expectClose(got, ref.refRmsNorm(x, 1000, w, 1e-5), 1e-5, 1e-4, 'rmsNorm');
  });
  await check('rope neox 17x3x64 +100', async () => {
    const x = randomF32(17 * 3 * 64, 4);
    const got = await single(backend, { op: 'rope', x: await upload(backend, 'f32', [17, 3, 64], x), positionOffset: 100, base: 10000, mode: 'neox' });
    expectClose(got, ref.refRope(x, 17, 3, 64, 100, 10000, true), 2e-5, 1e-4, 'rope');
  });
  await check('attention causal 9x130 h4 kv2 d64', async () => {
    const [sq, sk, heads, kvHeads, d] = [9, 130, 4, 2, 64];
    const q = randomF32(sq * heads * d, 5);
    const k = randomF32(sk * kvHeads * d, 6);
    const v = randomF32(sk * kvHeads * d, 7);
    const op: Op<BoundTensor> = {
      op: 'attention',
      q: await upload(backend, 'f32', [sq, heads, d], q),
      k: await upload(backend, 'f32', [sk, kvHeads, d], k),
      v: await upload(backend, 'f32', [sk, kvHeads, d], v),
      causal: true,
      scale: undefined,
    };
    expectClose(await single(backend, op), ref.refAttention(q, k, v, { sq, sk, heads, kvHeads, d }, true, 1 / 8), 1e-5, 1e-4, 'attention');
  });
  await check('cosine 3x4097x65 + topK 10', async () => {
    const [nq, nt, dim] = [3, 4097, 65];
    const queries = randomF32(nq * dim, 8);
    const targets = randomF32(nt * dim, 9);
    const scores = await run(backend, { op: 'cosineSimilarity', queries: await upload(backend, 'f32', [nq, dim], queries), targets: await upload(backend, 'f32', [nt, dim], targets) });
    const s = scores[0];
    if (s === undefined) throw new Error('no scores');
    const expected = ref.refCosine(queries, targets, nq, nt, dim);
    expectClose(await readF32(backend, s), expected, 1e-6, 1e-5, 'cosine');
    const [values, indices] = await run(backend, { op: 'topK', x: s, k: 10 });
    if (values === undefined || indices === undefined) throw new Error('no topK');
    const top = ref.refTopK(await readF32(backend, s), nq, nt, 10);
    const gotIdx = Array.from(await readI32(backend, indices));
    if (gotIdx.join() !== Array.from(top.indices).join()) throw new Error(`topK indices ${gotIdx.join()} != ${Array.from(top.indices).join()}`);
  });
  await check('spreadActivation 1000 nodes x3', async () => {
    const next = createRandom(5);
    const nodes = 1000;
    const rowPtr = new Uint32Array(nodes + 1);
    const cols: number[] = [];
    for (let i = 0; i < nodes; i++) {
      const deg = Math.floor(next() * 8);
      for (let e = 0; e < deg; e++) cols.push(Math.floor(next() * nodes));
      rowPtr[i + 1] = cols.length;
    }
    const colIdx = Uint32Array.from(cols);
    const weights = Float32Array.from(cols, () => next());
    const initial = Float32Array.from({ length: nodes }, () => next());
    const op: Op<BoundTensor> = {
      op: 'spreadActivation',
      rowPtr: await upload(backend, 'u32', [nodes + 1], rowPtr),
      colIdx: await upload(backend, 'u32', [cols.length], colIdx),
      weights: await upload(backend, 'f32', [cols.length], weights),
      initial: await upload(backend, 'f32', [nodes], initial),
      decay: 0.5,
      threshold: 0.2,
      iterations: 3,
    };
    expectClose(await single(backend, op), ref.refSpread(rowPtr, colIdx, weights, initial, 0.5, 0.2, 3), 1e-5, 1e-5, 'spread');
  });
  return results;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function timeOp(backend: WebGpuBackend, op: Op<BoundTensor>, reps: number): Promise<{ kernelMs: number; wallMs: number }> {
  const specs = inferOutputs(mapOpTensors(op, (t): TensorSpec => ({ dtype: t.dtype, shape: t.shape })));
  const kernel: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < reps + 5; i++) {
    const t0 = performance.now();
    const result = await backend.run(op, specs);
    const t = performance.now() - t0;
    for (const o of result.outputs) backend.free(o);
    if (i < 5) continue;
    wall.push(t);
    kernel.push(result.kernelMs);
  }
  return { kernelMs: median(kernel), wallMs: median(wall) };
}

/** Largest |error| of 16 sampled entries of a x a against f64 dot products. */
async function sampledMatmulError(backend: WebGpuBackend, a: BoundTensor, host: Float32Array, n: number): Promise<number> {
  const [product] = await run(backend, { op: 'matmul', a, b: a });
  if (product === undefined) throw new Error('no product');
  const got = await readF32(backend, product);
  backend.free(product.buffer);
  const next = createRandom(n);
  let worst = 0;
  for (let s = 0; s < 16; s++) {
    const i = Math.floor(next() * n);
    const j = Math.floor(next() * n);
    let dot = 0;
    for (let p = 0; p < n; p++) dot += (host[i * n + p] ?? 0) * (host[p * n + j] ?? 0);
    worst = Math.max(worst, Math.abs((got[i * n + j] ?? 0) - dot));
  }
  return worst;
}

async function perf(backend: WebGpuBackend, sizes: readonly number[]): Promise<Json> {
  const out: Json = {};
  for (const n of sizes) {
    const host = randomF32(n * n, n);
    const a = await upload(backend, 'f32', [n, n], host);
    const t = await timeOp(backend, { op: 'matmul', a, b: a }, 10);
    const flop = 2 * n ** 3;
    const maxError = await sampledMatmulError(backend, a, host, n);
    out[`matmul_f32 n=${n}`] = { ...t, kernelGflops: flop / t.kernelMs / 1e6, wallGflops: flop / t.wallMs / 1e6, maxError };
    backend.free(a.buffer);
  }
  for (const dtype of ['q8_0', 'q4_0'] as const) {
    for (const m of [1, 16]) {
      const [k, n] = [4096, 4096];
      const x = await upload(backend, 'f32', [m, k], randomF32(m * k, 1));
      const wBytes = (dtype === 'q8_0' ? ref.quantizeQ8_0 : ref.quantizeQ4_0)(randomF32(n * k, 2));
      const w = await upload(backend, dtype, [n, k], wBytes);
      const t = await timeOp(backend, { op: 'quantizedMatmul', x, w }, 10);
      out[`quantizedMatmul ${dtype} m=${m} 4096x4096`] = { ...t, weightGBps: wBytes.byteLength / t.kernelMs / 1e6, gflops: (2 * m * k * n) / t.kernelMs / 1e6 };
    }
  }
  return out;
}

/**
 * CPU while awaiting one ~100 ms matmul: process and JS-thread CPU, throttled waiter vs direct await. The pool
 * cap is raised so the output buffer is reused, not re-allocated, and the figures isolate the waiting.
 */
async function waitCost(): Promise<Json> {
  const out: Json = {};
  let n = 0;
  for (const [name, direct] of [['throttled', false], ['direct', true]] as const) {
    const backend = await makeBackend(direct);
    if (n === 0) {
      const probe = await upload(backend, 'f32', [2048, 2048], randomF32(2048 * 2048, 1));
      const t = await timeOp(backend, { op: 'matmul', a: probe, b: probe }, 5);
      backend.free(probe.buffer);
      out['probe2048'] = t;
      const limit = Math.floor(Math.sqrt(backend.describe().maxStorageBufferBindingSize / 4));
      n = Math.min(limit, Math.round((2048 * Math.cbrt(100 / t.kernelMs)) / 64) * 64);
    }
    const a = await upload(backend, 'f32', [n, n], randomF32(n * n, 3));
    await timeOp(backend, { op: 'matmul', a, b: a }, 1);
    const samples: Json[] = [];
    for (let r = 0; r < 5; r++) {
      const cpu0 = process.cpuUsage();
      const main0 = mainThreadCpuMs() ?? NaN;
      const t0 = performance.now();
      const outs = await run(backend, { op: 'matmul', a, b: a });
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const main = (mainThreadCpuMs() ?? NaN) - main0;
      for (const o of outs) backend.free(o.buffer);
      samples.push({ wallMs: wall, processCpuMs: (cpu.user + cpu.system) / 1000, mainThreadCpuMs: main, mainThreadShare: main / wall });
    }
    out[name] = { n, samples };
    await backend.dispose();
  }
  return out;
}

async function main(): Promise<void> {
  const section = process.argv[2] ?? 'correctness';
  if (process.argv.includes('--swiftshader')) useSwiftShader();
  const started = performance.now();
  let result: Json;
  if (section === 'wait') result = await waitCost();
  else {
    const backend = await makeBackend();
    const info = backend.describe();
    if (section === 'correctness') result = { device: info, checks: await correctness(backend) };
    else if (section === 'perf') result = { device: info.name, perf: await perf(backend, [256, 512, 1024, 1536]) };
    else result = { device: info.name, perf: await perf(backend, [2048, 3072, 4096]) };
    await backend.dispose();
  }
  console.log(JSON.stringify({ section, seconds: (performance.now() - started) / 1000, ...result }, null, 1));
}

await main();
