// WebGPU suite (issues #4 and #9): Tandem's WebGPU backend on dawn.node, SwiftShader here (small sizes) or the
// GPU machine's GPU with --gpu. Measures, side by side in one process:
//  1. f32 matmul n x n: kernel time (timestamp-query) and wall time through the engine with { only: 'webgpu' };
//  2. the same on @tensorflow/tfjs-backend-webgpu on the same Dawn GPU (webgpu/tfjs-webgpu.ts);
//  3. the cuBLAS SGEMM ceiling (--gpu only, apps/bench/probes/cublas-ceiling.py);
//  4. cosine similarity 768-d vs N resident targets: bytes of targets / kernel time, against a copy peak;
//  5. CPU of this process while waiting on a ~100 ms GPU job;
//  6. latency vs size, WebGPU vs WASM (matmul and add), with the crossover.
// Sizes per machine are in webgpu/config.ts; override them with TANDEM_BENCH_WEBGPU_MATMUL_SIZES,
// TANDEM_BENCH_WEBGPU_COSINE_SIZES, TANDEM_BENCH_WEBGPU_LATENCY_SIZES, TANDEM_BENCH_WEBGPU_ADD_SIZES (comma-separated)
// and TANDEM_BENCH_WEBGPU_REPS (most repetitions per row), e.g.
//   TANDEM_BENCH_WEBGPU_MATMUL_SIZES=64,128 TANDEM_BENCH_WEBGPU_COSINE_SIZES=4096 npm run bench -- webgpu
// Each measurement is guarded: a failure or timeout becomes a verdict, never a crash; without WebGPU the rows are
// empty and the verdict says why.
import type { Row, SuiteOptions, SuiteResult } from '../report.ts';
import { cosineChart, latencyChart, matmulChart } from '../webgpu/charts.ts';
import { benchConfig } from '../webgpu/config.ts';
import { measureCopyPeak } from '../webgpu/copy-peak.ts';
import { cosineSweep } from '../webgpu/cosine-sweep.ts';
import { measureCublasCeiling } from '../webgpu/cublas.ts';
import { attempt, type Outcome } from '../webgpu/guard.ts';
import { latencySweep } from '../webgpu/latency.ts';
import { matmulFlop } from '../webgpu/accounting.ts';
import { matmulSweep } from '../webgpu/matmul-sweep.ts';
import { cosineRows, latencyRows, matmulRows, waitRow } from '../webgpu/rows.ts';
import { createBenchEngine } from '../webgpu/setup.ts';
import { loadTfjsWebGpu } from '../webgpu/tfjs-webgpu.ts';
import { cosineVerdict, crossoverVerdict, cublasVerdict, tfjsVerdicts, waitVerdict } from '../webgpu/verdicts.ts';
import { matmulSideFor, measureWaitCost } from '../webgpu/wait-cpu.ts';
import type { CublasCeiling } from '../webgpu/cublas.ts';

/** Runs the suite. */
export default async function webgpuSuite(options: SuiteOptions): Promise<SuiteResult> {
  const config = benchConfig(options.gpu);
  const setup = await createBenchEngine(options.gpu);
  if (!setup.ok) {
    return {
      suite: 'webgpu',
      rows: [],
      verdicts: [`WebGPU unavailable, nothing measured: ${setup.reason}`, 'every issue #4 target: NOT MEASURED'],
    };
  }
  const bench = setup.value;
  const { engine } = bench;
  try {
    // Cosine first: on Dawn/Vulkan, after host uploads or a few GB allocated and freed, even a plain read of a large
    // buffer runs at about half speed (docs/decisions.md, issue 29: the slow-read mode), so the other sections would
    // lower it. Its own upload of the targets still does: not resolved.
    const cosine = await cosineSweep(engine, bench.webgpu.describe().maxBufferSize, config);
    const tfjs = await loadTfjsWebGpu();
    const matmul = await matmulSweep(engine, tfjs, config);
    const cublas: Outcome<CublasCeiling> = options.gpu
      ? await measureCublasCeiling(240_000)
      : { ok: false, reason: 'runs only with --gpu (needs python3 with torch and CUDA)' };
    const device = bench.webgpu.currentDevice();
    const copyBytes = Math.min(bench.software ? 64 * 2 ** 20 : 1024 * 2 ** 20, bench.webgpu.describe().maxBufferSize);
    const copyPeak =
      device === undefined
        ? { ok: false as const, reason: 'no device' }
        : await attempt('copy peak', config.rowTimeoutMs, () => measureCopyPeak(device, copyBytes));
    const rates = matmul.flatMap((s) =>
      s.ours.ok && s.ours.value.kernel !== undefined ? [matmulFlop(s.n) / s.ours.value.kernel.median] : [],
    );
    const maxN = Math.floor(Math.sqrt(bench.maxStorageBufferBindingSize / 4));
    const wait =
      rates.length === 0
        ? { ok: false as const, reason: 'no matmul rate to size the job from' }
        : await attempt('wait cost', config.rowTimeoutMs, () =>
            measureWaitCost(engine, matmulSideFor(100, Math.max(...rates), maxN), 100, maxN),
          );
    const latency = await latencySweep(engine, config);
    const rows: Row[] = [
      ...matmulRows(matmul),
      ...cosineRows(cosine, config.cosineSizes),
      waitRow(wait),
      ...latencyRows(latency),
    ];
    const inputs = { software: bench.software, matmul, cublas, cosine, copyPeak, wait, latency };
    const wrong = rows.filter((r) => String(r['check'] ?? '').startsWith('WRONG'));
    return {
      suite: 'webgpu',
      rows,
      verdicts: [
        `device: ${bench.device}${bench.software ? " — a SOFTWARE GPU (SwiftShader on this machine's CPU): every figure here is a software GPU's; the targets are for the H100 (run with --gpu there)" : ''}`,
        `kernel times: ${bench.timestamps ? "timestamp-query (the backend's RunResult.kernelMs)" : 'NO timestamp-query on this adapter: "kernel" is wall time around submit and completion'}; ${bench.wasmNote}`,
        tfjs.ok ? tfjs.value.description : `tfjs-backend-webgpu NOT MEASURED: ${tfjs.reason}`,
        ...(wrong.length > 0
          ? [
              `WRONG RESULTS (sampled check failed): ${wrong.map((r) => `${r['engine']} ${r['section']} ${r['n'] ?? r['N']}`).join(', ')}`,
            ]
          : []),
        ...tfjsVerdicts(inputs),
        cublasVerdict(inputs),
        cosineVerdict(inputs),
        copyPeak.ok
          ? `device copy peak (${copyPeak.value.copies} x ${copyPeak.value.bytes / 2 ** 20} MiB buffer copies, read + write, wall of one submission): ${(copyPeak.value.tbps * 1000).toFixed(1)} GB/s`
          : `device copy peak NOT MEASURED: ${copyPeak.reason}`,
        waitVerdict(inputs),
        crossoverVerdict(latency, 'matmul'),
        crossoverVerdict(latency, 'add'),
      ],
      plots: [
        matmulChart(matmul, cublas),
        latencyChart(latency, 'matmul'),
        latencyChart(latency, 'add'),
        cosineChart(cosine, copyPeak, cublas),
      ],
    };
  } finally {
    await engine.dispose();
  }
}
