// Side by side: cosine similarity of one 768-d query against 16,384 resident targets. Tandem gets the raw targets
// (its kernel keeps their norms with the tensor after the first call); tfjs-backend-wasm and plain JS get targets
// and query normalised beforehand, untimed, so theirs is one mat-vec: the fastest honest way to use them.
import { createRng } from '@tandem/core';
import type { Row } from '../report.ts';
import { interleaved, maxRelDiff, warmUp, type TimedCall } from './measure.ts';
import { plainJsCosine } from './plain-js.ts';
import type { CosineRunner } from './runner.ts';
import { tandemCosine } from './tandem-wasm.ts';
import { tfjsCosine } from './tfjs-wasm.ts';

const DIM = 768;
const TARGETS = 16_384;

/** Runs every engine once: rows (time ratios against Tandem on one thread) and verdicts. */
export async function compareCosine(): Promise<{ rows: Row[]; verdicts: string[] }> {
  const rng = createRng(7);
  const query = rng.fillUniform(new Float32Array(DIM), -1, 1);
  const targets = rng.fillUniform(new Float32Array(DIM * TARGETS), -1, 1);
  const runners: CosineRunner[] = [await tandemCosine(1), await tfjsCosine(), plainJsCosine(), await tandemCosine(2)];
  const calls: TimedCall[] = [];
  const diffs: number[] = [];
  let reference: Float32Array = new Float32Array(0);
  for (const [i, runner] of runners.entries()) {
    const call = await runner.prepare(query, targets, DIM);
    const out = await call();
    if (i === 0) reference = out;
    diffs.push(i === 0 ? 0 : maxRelDiff(out, reference));
    await warmUp(call, runner.name === 'plain-js' ? 2 : 10);
    calls.push(call);
  }
  const measured = await interleaved(calls, 30);
  for (const runner of runners) await runner.close();
  const tandemMs = measured[0]?.median ?? NaN;
  const rows: Row[] = runners.map((runner, i) => {
    const s = measured[i] ?? { median: NaN, min: NaN, max: NaN, p99: NaN, count: 0 };
    return {
      section: `cosine 1x${DIM} vs ${TARGETS} targets`,
      engine: runner.name,
      threads: runner.threads,
      medianMs: s.median,
      minMs: s.min,
      maxMs: s.max,
      reps: s.count,
      tandemSpeedup: s.median / tandemMs,
      maxRelDiffVsTandem: diffs[i] ?? NaN,
      detail: runner.note,
    };
  });
  const tfjs = rows.find((r) => r['engine'] === 'tfjs-backend-wasm');
  const ratio = Number(tfjs?.['tandemSpeedup']);
  return {
    rows,
    verdicts: [
      `cosine 768 x 16,384, one thread, whole call with scores in JS: Tandem WASM ${tandemMs.toFixed(3)} ms (raw targets) vs tfjs-backend-wasm ${Number(tfjs?.['medianMs']).toFixed(3)} ms (pre-normalised targets): ${ratio.toFixed(2)}x (> 1 = Tandem faster) -> ${ratio >= 1 ? 'MET' : 'MISSED'}`,
    ],
  };
}
