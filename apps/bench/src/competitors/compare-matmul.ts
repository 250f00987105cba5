// Side by side in one process: f32 matmul n x n on Tandem's WASM backend and the engines users would pick instead,
// same shapes, same thread counts, measured in alternating blocks per size; every result is checked against
// Tandem's. Ratios are time(other) / time(Tandem): > 1 means Tandem is faster.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createRng, type SampleStats } from '@tandem/core';
import type { Row } from '../report.ts';
import { progress } from '../report.ts';
import { interleaved, maxRelDiff, warmUp, type TimedCall } from './measure.ts';
import { plainJsMatmul } from './plain-js.ts';
import type { MatmulRunner } from './runner.ts';
import { tandemMatmul } from './tandem-wasm.ts';
import { TFJS_THREADS_NOTE, tfjsMatmul } from './tfjs-wasm.ts';

/** Sizes compared. */
export const SIZES = [128, 256, 512, 1024] as const;

/** The child process that measures onnxruntime-web beside Tandem at one thread count, and how it marks its result line. */
const CHILD = path.join(import.meta.dirname, 'matmul-threads-child.ts');
export const RESULT_PREFIX = 'MATMUL_MEASUREMENTS ';

/** Plain JS stops here: seconds per call above it, and its rate is clear by then. */
const PLAIN_JS_MAX_N = 512;

/** One engine at one size and thread count. */
export interface MatmulMeasurement {
  /** Engine name. */
  readonly engine: string;
  /** Threads it ran on. */
  readonly threads: number;
  /** Matrix size. */
  readonly n: number;
  /** Call times, ms. */
  readonly stats: SampleStats;
  /** GFLOP/s at the median. */
  readonly gflops: number;
  /** time(this) / time(Tandem) at the same size and threads. */
  readonly ratio: number;
  /** Largest relative difference from Tandem's result. */
  readonly maxRelDiff: number;
}

function repsFor(n: number): number {
  return Math.max(6, Math.min(45, Math.round(1.5e9 / (2 * n ** 3))));
}

async function measureSize(
  runners: readonly MatmulRunner[],
  n: number,
  a: Float32Array,
  b: Float32Array,
): Promise<MatmulMeasurement[]> {
  const active = runners.filter((r) => r.name !== 'plain-js' || n <= PLAIN_JS_MAX_N);
  const calls: TimedCall[] = [];
  const diffs: number[] = [];
  let reference: Float32Array = new Float32Array(0);
  for (const runner of active) {
    const call = await runner.prepare(n, a, b);
    const out = await call();
    if (runner.name === 'tandem-wasm') reference = out;
    diffs.push(runner.name === 'tandem-wasm' ? 0 : maxRelDiff(out, reference));
    await warmUp(call, runner.name === 'plain-js' ? 1 : 5, runner.name === 'plain-js' ? 0 : 150);
    calls.push(call);
  }
  const reps = active.map((r) => (r.name === 'plain-js' ? Math.max(3, Math.round(repsFor(n) / 8)) : repsFor(n)));
  const measured = await interleaved(calls, Math.max(...reps));
  const tandemMs = measured[0]?.median ?? NaN;
  return active.map((runner, i) => {
    const s = measured[i] ?? { median: NaN, min: NaN, max: NaN, p99: NaN, count: 0 };
    return {
      engine: runner.name,
      threads: runner.threads,
      n,
      stats: s,
      gflops: (2 * n ** 3) / (s.median * 1e6),
      ratio: s.median / tandemMs,
      maxRelDiff: diffs[i] ?? NaN,
    };
  });
}

/** Every size for one group of engines (Tandem first), then closes them. */
export async function measureGroup(runners: readonly MatmulRunner[]): Promise<MatmulMeasurement[]> {
  const rng = createRng(42);
  const measurements: MatmulMeasurement[] = [];
  for (const [i, n] of SIZES.entries()) {
    progress(`matmul vs other engines (${runners[0]?.threads ?? 1} thread(s))`, i + 1, SIZES.length);
    const a = rng.fillUniform(new Float32Array(n * n), -1, 1);
    const b = rng.fillUniform(new Float32Array(n * n), -1, 1);
    measurements.push(...(await measureSize(runners, n, a, b)));
  }
  for (const runner of runners) await runner.close();
  return measurements;
}

/** Tandem and onnxruntime-web at one thread count, in a fresh child process (see matmul-threads-child.ts). */
async function measureInChild(threads: number): Promise<MatmulMeasurement[]> {
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@tandem/source', '--import', 'tsx', CHILD, String(threads)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`the ${threads}-thread matmul comparison exited with ${code}`)),
    );
  });
  const line = output.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
  if (line === undefined) throw new Error(`the ${threads}-thread matmul comparison printed no result`);
  const parsed: unknown = JSON.parse(line.slice(RESULT_PREFIX.length));
  return Array.isArray(parsed) ? parsed.filter(isMeasurement) : [];
}

function isMeasurement(value: unknown): value is MatmulMeasurement {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof Reflect.get(value, 'engine') === 'string' &&
    typeof Reflect.get(value, 'n') === 'number'
  );
}

/** Sizes the targets are judged on (n = 256..1024); smaller sizes are reported beside them. */
const JUDGED_MIN_N = 256;

/**
 * Runs every engine at every size and thread count: Tandem, tfjs-backend-wasm and plain JS at one thread here;
 * onnxruntime-web beside Tandem in a fresh child process per thread count. onnxruntime-web sizes its thread pool
 * once per process, and in a process that has also loaded tfjs-backend-wasm it ran at under half of what it does
 * alone (docs/decisions.md, issue 29), so it is only ever measured in a process of its own. Then rows and verdicts.
 */
export async function compareMatmul(): Promise<{ measurements: MatmulMeasurement[]; rows: Row[]; verdicts: string[] }> {
  const measurements = await measureGroup([await tandemMatmul(1), await tfjsMatmul(), plainJsMatmul()]);
  // The child's own Tandem rows are its side-by-side baseline; the 1-thread Tandem rows above already stand for it.
  measurements.push(...(await measureInChild(1)).filter((m) => m.engine !== 'tandem-wasm'));
  measurements.push(...(await measureInChild(2)));
  const rows: Row[] = measurements.map((m) => ({
    section: 'matmul vs engines',
    engine: m.engine,
    threads: m.threads,
    n: m.n,
    medianMs: m.stats.median,
    minMs: m.stats.min,
    maxMs: m.stats.max,
    reps: m.stats.count,
    gflops: m.gflops,
    tandemSpeedup: m.ratio,
    maxRelDiffVsTandem: m.maxRelDiff,
  }));
  const verdicts: string[] = [];
  for (const threads of [1, 2]) {
    for (const other of ['tfjs-backend-wasm', 'onnxruntime-web', 'plain-js']) {
      const pairs = measurements.filter((m) => m.threads === threads && m.engine === other);
      if (pairs.length === 0) continue;
      const ratios = pairs.map((m) => `n=${m.n}: ${m.ratio.toFixed(2)}x`).join(', ');
      const worst = Math.min(...pairs.filter((m) => m.n >= JUDGED_MIN_N).map((m) => m.ratio));
      const where = other === 'onnxruntime-web' ? '; measured in its own process beside Tandem' : '';
      verdicts.push(
        `Tandem WASM vs ${other}, ${threads} thread${threads > 1 ? 's' : ''} (time ratio, > 1 = Tandem faster${where}): ${ratios} ` +
          `(target >= 1.0 for n >= ${JUDGED_MIN_N}) -> ${worst >= 1 ? 'MET' : 'MISSED'}`,
      );
    }
  }
  verdicts.push(TFJS_THREADS_NOTE);
  return { measurements, rows, verdicts };
}
