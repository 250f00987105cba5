// Side by side in one process: f32 matmul n x n on Tandem's WASM backend and the engines users would pick
// instead, same shapes, same thread counts, interleaved per size; every result is checked against Tandem's.
import { createRng, monotonicClock } from '@tandem/core';
import type { Row } from '../report.ts';
import { progress } from '../report.ts';
import { stats } from '../stats.ts';
import { ortRunner, plainJsRunner, tandemRunner, tfjsRunner, type MatmulRunner } from './engines.ts';

/** Sizes compared. */
export const SIZES = [128, 256, 512, 1024] as const;

async function median(call: () => Promise<Float32Array>, n: number): Promise<number> {
  const flops = 2 * n ** 3;
  const reps = Math.max(5, Math.min(40, Math.round(2e9 / flops)));
  for (let i = 0; i < 2; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = monotonicClock();
    await call();
    times.push(monotonicClock() - t0);
  }
  return stats(times).median;
}

function maxRelDiff(x: Float32Array, y: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < y.length; i++) worst = Math.max(worst, Math.abs((x[i] ?? 0) - (y[i] ?? 0)) / (1 + Math.abs(y[i] ?? 0)));
  return x.length === y.length ? worst : Infinity;
}

/** Runs every engine at every size and thread count; rows plus verdict lines with the ratios. */
export async function compareMatmul(): Promise<{ rows: Row[]; verdicts: string[] }> {
  const rows: Row[] = [];
  const verdicts: string[] = [];
  const groups: { threads: number; runners: MatmulRunner[] }[] = [
    { threads: 1, runners: [await tandemRunner(1), await tfjsRunner(), await ortRunner(1), plainJsRunner()] },
    { threads: 2, runners: [await tandemRunner(2), await ortRunner(2)] },
  ];
  const rng = createRng(42);
  let step = 0;
  const total = groups.reduce((s, g) => s + g.runners.length, 0) * SIZES.length;
  for (const { threads, runners } of groups) {
    for (const n of SIZES) {
      const a = rng.fillUniform(new Float32Array(n * n), -1, 1);
      const b = rng.fillUniform(new Float32Array(n * n), -1, 1);
      let tandemMs = NaN;
      let tandemOut: Float32Array = new Float32Array(0);
      for (const runner of runners) {
        progress(`matmul vs other engines (${threads} thread${threads > 1 ? 's' : ''})`, ++step, total);
        if (runner.name === 'plain-js' && n > 512) continue; // seconds per call; its rate is clear by 512
        const call = await runner.prepare(n, a, b);
        const out = await call();
        if (runner.name === 'tandem-wasm') tandemOut = out;
        const diff = runner.name === 'tandem-wasm' ? 0 : maxRelDiff(out, tandemOut);
        const ms = await median(call, n);
        if (runner.name === 'tandem-wasm') tandemMs = ms;
        const gflops = (2 * n ** 3) / (ms * 1e6);
        rows.push({ section: 'matmul vs engines', engine: runner.name, threads, n, medianMs: ms, gflops, tandemSpeedup: runner.name === 'tandem-wasm' ? 1 : ms / tandemMs, maxRelDiffVsTandem: diff });
      }
    }
    for (const runner of runners) await runner.close();
  }
  for (const threads of [1, 2]) {
    for (const other of ['tfjs-backend-wasm', 'onnxruntime-web', 'plain-js']) {
      const pairs = rows.filter((r) => r['threads'] === threads && r['engine'] === other);
      if (pairs.length === 0) continue;
      const ratios = pairs.map((r) => `n=${String(r['n'])}: ${Number(r['tandemSpeedup']).toFixed(2)}x`).join(', ');
      const worst = Math.min(...pairs.map((r) => Number(r['tandemSpeedup'])));
      verdicts.push(`Tandem WASM vs ${other}, ${threads} thread${threads > 1 ? 's' : ''} (time ratio, > 1 = Tandem faster): ${ratios} (target >= 1.0) -> ${worst >= 1 ? 'MET' : 'MISSED'}`);
    }
  }
  if (!rows.some((r) => r['engine'] === 'tfjs-backend-wasm' && r['threads'] === 2)) {
    verdicts.push('tfjs-backend-wasm, 2 threads: not measured: stock tfjs-backend-wasm turns threads off under Node (tfjs issue #3830); a fair 2-thread comparison needs Chromium (cross-origin isolated page)');
  }
  return { rows, verdicts };
}
