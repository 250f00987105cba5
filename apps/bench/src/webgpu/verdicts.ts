// Verdict lines of the webgpu suite: MET / MISSED / NOT MEASURED, each naming its target and numbers. Targets are
// the H100's (issue #4); on a software GPU a target is NOT MEASURED and the line gives the software figures.
import { crossoverX, type PlotPoint } from '../plots/plot.ts';
import type { CopyPeak } from './copy-peak.ts';
import type { CosineFigures } from './cosine-sweep.ts';
import { cosineTbps } from './cosine-sweep.ts';
import type { CublasCeiling } from './cublas.ts';
import type { Outcome } from './guard.ts';
import type { LatencyPoint } from './latency.ts';
import { matmulTflops, type MatmulSize } from './matmul-sweep.ts';
import type { WaitCost } from './wait-cpu.ts';

/** The matmul size issue #4's ratio targets are judged at. */
export const TARGET_N = 4096;
/** Cosine bandwidth target, TB/s. */
export const COSINE_TARGET_TBPS = 1.5;
/** Waiting CPU target, % of a core. */
export const WAIT_TARGET_PERCENT = 10;

/** What the verdicts are judged from. */
export interface VerdictInputs {
  /** Adapter is a software GPU. */
  readonly software: boolean;
  /** Matmul sweep. */
  readonly matmul: readonly MatmulSize[];
  /** cuBLAS ceiling or why not. */
  readonly cublas: Outcome<CublasCeiling>;
  /** Cosine rows. */
  readonly cosine: ReadonlyArray<Outcome<CosineFigures>>;
  /** Copy peak or why not. */
  readonly copyPeak: Outcome<CopyPeak>;
  /** Wait cost or why not. */
  readonly wait: Outcome<WaitCost>;
  /** Latency points. */
  readonly latency: readonly LatencyPoint[];
}

/** A figure for a verdict: 3 significant digits, whole numbers from 1000 up (no exponents), 'n/a' when not finite. */
function fmt(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return 'n/a';
  return Math.abs(x) >= 10 ** digits ? x.toFixed(0) : x.toPrecision(digits);
}

/** MET / MISSED, or NOT MEASURED on a software GPU (whose figures say nothing about the H100 target). */
function judged(software: boolean, met: boolean): string {
  if (software) return 'NOT MEASURED (software GPU; target is for the H100)';
  return met ? 'MET' : 'MISSED';
}

function largestBoth(matmul: readonly MatmulSize[]): MatmulSize | undefined {
  return [...matmul].reverse().find((s) => s.ours.ok && s.tfjs.ok);
}

/** Ours vs tfjs-backend-webgpu (issue #4 figure 2). */
export function tfjsVerdicts(inputs: VerdictInputs): string[] {
  const lines: string[] = [];
  const failed = inputs.matmul.find((s) => !s.tfjs.ok);
  if (failed !== undefined && !failed.tfjs.ok)
    lines.push(`tfjs-backend-webgpu could not be measured at n=${failed.n}: ${failed.tfjs.reason}`);
  const at = largestBoth(inputs.matmul);
  if (at === undefined || !at.ours.ok || !at.tfjs.ok) {
    lines.push(
      `ours/tfjs-backend-webgpu matmul speed at n=${TARGET_N} (target >= 1.0): NOT MEASURED (no size with both engines measured)`,
    );
    return lines;
  }
  const [o, t] = [at.ours.value, at.tfjs.value];
  const kernelRatio = t.kernel !== undefined && o.kernel !== undefined ? t.kernel.median / o.kernel.median : NaN;
  const wallRatio = t.wall.median / o.wall.median;
  const detail = `n=${at.n}: kernel ${fmt(matmulTflops(at.n, o.kernel))} vs ${fmt(matmulTflops(at.n, t.kernel))} TFLOP/s (ours/tfjs ${fmt(kernelRatio)}x), wall ${fmt(o.wall.median)} vs ${fmt(t.wall.median)} ms (${fmt(wallRatio)}x)`;
  const wrong = inputs.matmul.some((s) => s.ours.ok && !s.ours.value.check.ok);
  const judgedStatus = wrong
    ? 'MISSED (ours gave wrong results: see the check column)'
    : judged(inputs.software, (Number.isFinite(kernelRatio) ? kernelRatio : wallRatio) >= 1);
  const status = at.n !== TARGET_N ? `NOT MEASURED at n=${TARGET_N} (largest measured n=${at.n})` : judgedStatus;
  lines.push(
    `ours/tfjs-backend-webgpu matmul speed, ${detail} (target >= 1.0 at n=${TARGET_N} on the H100) -> ${status}`,
  );
  return lines;
}

/** Ours vs cuBLAS (issue #4 figure 3). */
export function cublasVerdict(inputs: VerdictInputs): string {
  if (!inputs.cublas.ok) return `ours/cuBLAS SGEMM at n=${TARGET_N}: NOT MEASURED (${inputs.cublas.reason})`;
  const ours = inputs.matmul.find((s) => s.n === TARGET_N);
  const c = inputs.cublas.value;
  if (ours === undefined || !ours.ours.ok)
    return `ours/cuBLAS SGEMM at n=${TARGET_N}: cuBLAS ${fmt(c.sgemm4096Tflops)} TFLOP/s on ${c.device}; ours NOT MEASURED at n=${TARGET_N}`;
  const mine = matmulTflops(TARGET_N, ours.ours.value.kernel ?? ours.ours.value.wall);
  return `ours/cuBLAS SGEMM at n=${TARGET_N} (kernel): ${fmt(mine)} / ${fmt(c.sgemm4096Tflops)} TFLOP/s = ${fmt(mine / c.sgemm4096Tflops)} of cuBLAS on ${c.device} (reported, no target)`;
}

/** Cosine bandwidth (issue #4 figure 4). */
export function cosineVerdict(inputs: VerdictInputs): string {
  const measured = inputs.cosine.flatMap((r) => (r.ok ? [r.value] : []));
  const failures = inputs.cosine.flatMap((r) => (r.ok ? [] : [r.reason]));
  const failText = failures.length > 0 ? `; failed: ${failures.join('; ')}` : '';
  const largest = measured[measured.length - 1];
  if (largest === undefined)
    return `cosine 768-d bandwidth (target >= ${COSINE_TARGET_TBPS} TB/s): NOT MEASURED${failText}`;
  const wrong = measured.filter((m) => !m.check.ok).map((m) => m.count);
  // Judged at the largest N measured (the issue's 1,000,000 targets on the H100), not at the best size.
  const atLargest = cosineTbps(largest);
  const best = Math.max(...measured.map(cosineTbps));
  const peak = inputs.copyPeak.ok
    ? `, ${fmt((atLargest / inputs.copyPeak.value.tbps) * 100)}% of the measured copy peak ${fmt(inputs.copyPeak.value.tbps)} TB/s`
    : '';
  const gemv =
    inputs.cublas.ok && inputs.cublas.value.gemvTbps !== undefined
      ? `, cuBLAS GEMV 1M x 768 ${fmt(inputs.cublas.value.gemvTbps)} TB/s`
      : '';
  const detail = measured.map((m) => `N=${m.count}: ${fmt(cosineTbps(m) * 1000)} GB/s`).join(', ');
  const status =
    wrong.length > 0
      ? `MISSED (wrong results at N=${wrong.join(', ')})`
      : judged(inputs.software, atLargest >= COSINE_TARGET_TBPS);
  return `cosine 768-d vs resident targets (the suite's first section, largest N first), kernel bandwidth ${detail}; at N=${largest.count} ${fmt(atLargest)} TB/s${peak}${gemv}, best ${fmt(best)} TB/s (target >= ${COSINE_TARGET_TBPS} TB/s on the H100 at N=1,000,000) -> ${status}${failText}`;
}

/** CPU while waiting (issue #4 figure 5). */
export function waitVerdict(inputs: VerdictInputs): string {
  if (!inputs.wait.ok)
    return `CPU while waiting on a ~100 ms GPU job (target < ${WAIT_TARGET_PERCENT}% of a core): NOT MEASURED (${inputs.wait.reason})`;
  const w = inputs.wait.value;
  const main = w.mainThreadPercent;
  const judgedOn = main ?? w.processPercent;
  const note = inputs.software
    ? "; process CPU includes SwiftShader's own threads, so the JS main thread is judged"
    : '';
  return `CPU while waiting on a GPU job (matmul n=${w.n}, median ${fmt(w.wall.median)} ms): JS main thread ${main === undefined ? 'n/a' : `${fmt(main.median, 2)}%`}, whole process ${fmt(w.processPercent.median, 2)}% of a core${note} (target < ${WAIT_TARGET_PERCENT}%) -> ${judgedOn.median < WAIT_TARGET_PERCENT ? 'MET' : 'MISSED'}`;
}

/** Median-latency points of one op and backend. */
export function latencyPoints(
  points: readonly LatencyPoint[],
  op: 'matmul' | 'add',
  backend: 'webgpu' | 'wasm',
): PlotPoint[] {
  return points.flatMap((p) => {
    const r = p.byBackend[backend];
    return p.op === op && r.ok ? [{ x: p.size, y: r.value.median }] : [];
  });
}

/** Crossover of webgpu and wasm latency for one op (issue #4 figure 6). */
export function crossoverVerdict(points: readonly LatencyPoint[], op: 'matmul' | 'add'): string {
  const gpu = latencyPoints(points, op, 'webgpu');
  const cpu = latencyPoints(points, op, 'wasm');
  const unit = op === 'matmul' ? 'n' : 'elements';
  if (gpu.length === 0 || cpu.length === 0)
    return `${op} latency webgpu vs wasm: NOT MEASURED (${gpu.length} webgpu and ${cpu.length} wasm points)`;
  const x = crossoverX(gpu, cpu);
  const last = gpu[gpu.length - 1];
  const lastCpu = cpu.find((p) => p.x === last?.x);
  const faster = last !== undefined && lastCpu !== undefined && last.y < lastCpu.y ? 'webgpu' : 'wasm';
  const where =
    x === undefined
      ? `no crossover in ${unit} ${gpu[0]?.x}..${last?.x}: ${faster} is faster throughout`
      : `crossover at ${unit} ~${Math.round(x)} (${faster} faster at the largest size)`;
  return `${op} latency webgpu vs wasm (median wall through the engine): ${where} (reported, no target)`;
}
