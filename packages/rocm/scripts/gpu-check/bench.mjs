// Benchmarks on the device (kernel time from the addon's events, median of runs):
//   matmul f32 4096 (TFLOP/s, both tile variants), Q4_0 / Q8_0 mat-vec 4096 x 11008 (GB/s, 8 weight sets
//   rotated so the 50 MB L2 cannot hold them; f32 variants v0-v6, then the int8-activation ones q8act_v0-v3),
//   cosine 768-d x 1M resident targets (TB/s), a 1 GiB scale as the streaming ceiling, per-call overhead of a
//   one-element kernel (wall time of await run(), us), and attention decode / topK over 1M for information.
import { bytesOf, fastFill, median, randomBlocks, uniform } from './util.mjs';

async function timeRuns(device, kernel, inputSets, outputBytes, params, runs, warmup = 3) {
  const times = [];
  for (let i = 0; i < warmup + runs; i++) {
    const inputs = inputSets[i % inputSets.length];
    const r = await device.run(kernel, inputs, outputBytes, params);
    for (const id of r.outputs) device.free(id);
    if (i >= warmup) times.push(r.kernelMs);
  }
  return { medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times), runs };
}

async function upload(device, array) {
  return device.upload(bytesOf(array));
}

/** Full sizes, or tiny ones (small: true) to try the plumbing on the CPU emulation. */
function sizes(small) {
  return small
    ? { n: 128, scale: 1 << 16, qn: 64, qk: 256, sets: 2, ct: 2000, cd: 768, calls: 300, sk: 64, topn: 1 << 12 }
    : { n: 4096, scale: 256 * 1024 * 1024, qn: 11008, qk: 4096, sets: 8, ct: 1_000_000, cd: 768, calls: 2000, sk: 4096, topn: 1 << 20 };
}

/** The benchmarks; `only` names one section ('quantized', for a profiler run) or runs all. */
export async function runBenchmarks(device, log, small = false, only = undefined) {
  const results = {};
  const z = sizes(small);
  const want = (section) => only === undefined || only === section;

  // matmul 4096
  if (want('matmul')) {
    const n = z.n;
    const a = await upload(device, fastFill(new Float32Array(n * n), 1));
    const b = await upload(device, fastFill(new Float32Array(n * n), 2));
    for (const variant of [0, 1]) {
      const t = await timeRuns(device, 'matmul_f32', [[a, b]], [n * n * 4], { m: n, k: n, n, variant }, 10);
      results[`matmul_f32_4096_v${variant}`] = { ...t, tflops: (2 * n ** 3) / (t.medianMs * 1e-3) / 1e12 };
      log(`matmul_f32 ${n} v${variant}: ${t.medianMs.toFixed(3)} ms, ${results[`matmul_f32_4096_v${variant}`].tflops.toFixed(2)} TFLOP/s`);
    }
    device.free(a);
    device.free(b);
  }

  // streaming ceiling: scale over 1 GiB (read + write)
  if (want('scale')) {
    const count = z.scale;
    const x = await upload(device, fastFill(new Float32Array(count), 3));
    const t = await timeRuns(device, 'scale_f32', [[x]], [count * 4], { count, factor: 1.5 }, 10);
    results.scale_1GiB = { ...t, tbps: (2 * count * 4) / (t.medianMs * 1e-3) / 1e12 };
    log(`scale_f32 1 GiB (read+write): ${t.medianMs.toFixed(3)} ms, ${results.scale_1GiB.tbps.toFixed(3)} TB/s`);
    device.free(x);
  }

  // quantized mat-vec 4096 x 11008 (w: 11008 rows of 4096)
  for (const format of want('quantized') ? ['q4_0', 'q8_0'] : []) {
    const [n, k] = [z.qn, z.qk];
    const sets = z.sets;
    const xs = await upload(device, uniform(k, 4));
    const ws = [];
    const blocks = randomBlocks(format, n * k, 5).bytes;
    for (let s = 0; s < sets; s++) ws.push(await device.upload(blocks));
    const bytes = blocks.byteLength + k * 4 + n * 4;
    for (const variant of [0, 1, 2, 3, 4, 5, 6]) {
      const runs = only === 'quantized' ? 4 : 40; // under a profiler every launch is replayed: a few suffice
      const t = await timeRuns(device, `quantized_matmul_${format}`, ws.map((w) => [xs, w]), [n * 4], { m: 1, n, k, variant }, runs, only === 'quantized' ? 1 : 8);
      const key = `quantized_matvec_${format}_4096x11008_v${variant}`;
      results[key] = { ...t, weightBytes: blocks.byteLength, gbps: bytes / (t.medianMs * 1e-3) / 1e9 };
      log(`${format} mat-vec ${k}x${n} v${variant}: ${(t.medianMs * 1e3).toFixed(1)} us, ${results[key].gbps.toFixed(0)} GB/s`);
    }
    // The opt-in int8-activation path (quantized_matmul_q8act.hip): its time includes the x-quantizing kernel.
    for (const variant of [0, 1, 2, 3]) {
      const runs = only === 'quantized' ? 4 : 40;
      const t = await timeRuns(device, `quantized_matmul_${format}`, ws.map((w) => [xs, w]), [n * 4], { m: 1, n, k, variant, q8Activations: 1 }, runs, only === 'quantized' ? 1 : 8);
      const key = `quantized_matvec_${format}_4096x11008_q8act_v${variant}`;
      results[key] = { ...t, weightBytes: blocks.byteLength, gbps: bytes / (t.medianMs * 1e-3) / 1e9 };
      log(`${format} mat-vec ${k}x${n} q8 activations v${variant}: ${(t.medianMs * 1e3).toFixed(1)} us, ${results[key].gbps.toFixed(0)} GB/s`);
    }
    for (const w of ws) device.free(w);
    device.free(xs);
  }

  // cosine 768 x 1M resident targets
  if (want('cosine')) {
    const [d, t] = [z.cd, z.ct];
    const targets = await upload(device, fastFill(new Float32Array(d * t), 6));
    for (const q of [1, 8]) {
      const queries = await upload(device, uniform(q * d, 7));
      const r = await timeRuns(device, 'cosine_similarity_f32', [[queries, targets]], [q * t * 4], { queries: q, targets: t, dim: d }, 10);
      const key = `cosine_768x1M_q${q}`;
      results[key] = { ...r, tbps: (t * d * 4 + q * d * 4 + q * t * 4) / (r.medianMs * 1e-3) / 1e12 };
      log(`cosine ${d} x ${t}, ${q} quer${q === 1 ? 'y' : 'ies'}: ${r.medianMs.toFixed(3)} ms, ${results[key].tbps.toFixed(3)} TB/s`);
      device.free(queries);
    }
    device.free(targets);
  }

  // per-call overhead: a one-element scale, awaited one after another
  if (want('overhead')) {
    const x = await upload(device, new Float32Array([1]));
    const wall = [];
    const kernel = [];
    for (let i = 0; i < z.calls; i++) {
      const t0 = process.hrtime.bigint();
      const r = await device.run('scale_f32', [x], [4], { count: 1, factor: 2 });
      wall.push(Number(process.hrtime.bigint() - t0) / 1e3);
      kernel.push(r.kernelMs * 1e3);
      device.free(r.outputs[0]);
    }
    const steady = wall.slice(z.calls / 10);
    results.overhead_tiny_kernel = { medianUs: median(steady), p90Us: steady.sort((p, q) => p - q)[Math.floor(steady.length * 0.9)], kernelMedianUs: median(kernel.slice(z.calls / 10)), calls: steady.length };
    log(`per-call overhead (tiny kernel): median ${results.overhead_tiny_kernel.medianUs.toFixed(1)} us wall, event-timed kernel ${results.overhead_tiny_kernel.kernelMedianUs.toFixed(1)} us`);
    device.free(x);
  }

  // information: attention decode and topK over 1M
  if (want('other')) {
    const [sk, h, hkv, d] = [z.sk, 32, 8, 128];
    const q = await upload(device, uniform(h * d, 8));
    const k = await upload(device, fastFill(new Float32Array(sk * hkv * d), 9));
    const v = await upload(device, fastFill(new Float32Array(sk * hkv * d), 10));
    const r = await timeRuns(device, 'attention_f32', [[q, k, v]], [h * d * 4], { sq: 1, sk, heads: h, kvHeads: hkv, headDim: d, causal: 1, scale: 1 / Math.sqrt(d) }, 20);
    results.attention_decode_sk4096_h32_kv8_d128 = { ...r, gbps: (2 * sk * hkv * d * 4) / (r.medianMs * 1e-3) / 1e9 };
    log(`attention decode sk=4096 h=32/8 d=128: ${(r.medianMs * 1e3).toFixed(1)} us (${results.attention_decode_sk4096_h32_kv8_d128.gbps.toFixed(0)} GB/s of K+V)`);
    for (const id of [q, k, v]) device.free(id);
    const n = z.topn;
    const x = await upload(device, fastFill(new Float32Array(n), 11));
    const t = await timeRuns(device, 'top_k_f32', [[x]], [10 * 4, 10 * 4], { rows: 1, n, k: 10 }, 10);
    results.top_k_1M_k10 = t;
    log(`topK 1M k=10: ${t.medianMs.toFixed(3)} ms`);
    device.free(x);
  }
  return results;
}
