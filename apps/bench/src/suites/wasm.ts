// WASM suite: runs @tandem/wasm's kernel benchmark (packages/wasm/scripts/bench.ts) in child processes with relaxed
// SIMD enabled (Node 20 needs a flag for it) and turns its report lines into rows, including this core's measured
// f32x4 peak. Its threads section (2 threads vs 1) runs first, in a process of its own with V8's garbage collector
// on the main thread (--single-threaded-gc): on a 2-core machine V8's concurrent GC threads, busy after the other
// sections' allocations, take a core from the worker pool (the speedup fell from ~1.9x to ~1.0-1.5x: docs/decisions.md, issue 29).
// The rest runs after it; then, in this process, f32 matmul and cosine similarity side by side with
// @tensorflow/tfjs-backend-wasm, onnxruntime-web (wasm) and plain JS (competitors/). Plots: GFLOP/s vs n against the
// measured peaks, latency vs n, and 2-thread speedup vs n.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { compareCosine } from '../competitors/compare-cosine.ts';
import { compareMatmul, type MatmulMeasurement } from '../competitors/compare-matmul.ts';
import { crossoverX, type LineChart, type PlotMarker, type PlotSeries } from '../plots/plot.ts';
import type { Row, SuiteResult } from '../report.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../../../../packages/wasm/scripts/bench.ts');
// "<build>  <measurement>  <ms> ms  <detail>" as printed by the script's report().
const LINE = /^(\S+)\s+(.+?)\s+([0-9.]+) ms\s*(.*)$/;

/** One parsed line of the kernel benchmark. */
interface KernelRow {
  readonly build: string;
  readonly measurement: string;
  readonly medianMs: number;
  readonly detail: string;
}

/** The kernel benchmark's sections other than threads (see bench.ts). */
const SECTIONS_AFTER_THREADS = 'peak,matmul,matvec,softmax,cosine,attention,elementwise';

/** Runs bench.ts in a child process with `nodeFlags` and `args`; returns its stdout lines (echoed). */
async function runKernelBenchmark(nodeFlags: readonly string[], args: readonly string[]): Promise<string[]> {
  const lines: string[] = [];
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--experimental-wasm-relaxed-simd',
        ...nodeFlags,
        '--conditions=@tandem/source',
        '--import',
        'tsx',
        SCRIPT,
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const l of parts) {
        lines.push(l);
        console.log(l);
      }
    });
    child.on('error', reject);
    child.on('close', (c) => resolve(c ?? 1));
  });
  if (code !== 0) throw new Error(`wasm kernel benchmark exited with ${code}`);
  return lines;
}

function parseKernelRows(lines: readonly string[]): KernelRow[] {
  const rows: KernelRow[] = [];
  for (const l of lines) {
    const m = LINE.exec(l);
    if (m !== null)
      rows.push({ build: m[1] ?? '', measurement: m[2] ?? '', medianMs: Number(m[3]), detail: m[4] ?? '' });
  }
  return rows;
}

/** The first number before `unit` in a detail string ("52.0 GFLOP/s, 1.97x one thread"). */
function numberBefore(detail: string, unit: string): number {
  const m = new RegExp(`([0-9.]+)\\s*${unit.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`).exec(detail);
  return m === null ? NaN : Number(m[1]);
}

function matmulSize(measurement: string): number {
  const m = /^matmul f32 (\d+)x/.exec(measurement);
  return m === null ? NaN : Number(m[1]);
}

function find(rows: readonly KernelRow[], build: string, measurement: string): KernelRow | undefined {
  return rows.find((r) => r.build === build && r.measurement === measurement);
}

/** Verdicts for issue 3's kernel figures. */
function kernelVerdicts(rows: readonly KernelRow[]): string[] {
  const verdicts: string[] = [];
  for (const build of ['simd', 'relaxed']) {
    const rates = rows
      .filter((r) => r.build === build && matmulSize(r.measurement) >= 256)
      .map((r) => ({ n: matmulSize(r.measurement), gflops: numberBefore(r.detail, 'GFLOP/s') }));
    if (rates.length === 0) continue;
    const worst = Math.min(...rates.map((r) => r.gflops));
    verdicts.push(
      `matmul f32 one thread, ${build} build, n=256..1024: ${rates.map((r) => `${r.n}: ${r.gflops.toFixed(1)}`).join(', ')} GFLOP/s (target >= 45) -> ${worst >= 45 ? 'MET' : 'MISSED'}`,
    );
  }
  const speedups = rows
    .filter((r) => r.build === '2thr' && matmulSize(r.measurement) >= 256)
    .map((r) => ({
      n: matmulSize(r.measurement),
      x: numberBefore(r.detail, 'x one thread'),
      best: numberBefore(r.detail, 'x;'),
      others: numberBefore(r.detail, 'cores meanwhile'),
    }));
  if (speedups.length > 0) {
    const worst = Math.min(...speedups.map((s) => s.x));
    const detail = speedups
      .map(
        (s) =>
          `n=${s.n}: ${s.x.toFixed(2)}x (fastest runs ${s.best.toFixed(2)}x; others used ${s.others.toFixed(2)} cores)`,
      )
      .join(', ');
    verdicts.push(
      `matmul f32 two threads vs one (kernel time, medians): ${detail} (target >= 1.8 for n >= 256) -> ${worst >= 1.8 ? 'MET' : 'MISSED'}`,
    );
  }
  const softmax = find(rows, 'relaxed', 'softmax 1024x1024') ?? find(rows, 'simd', 'softmax 1024x1024');
  if (softmax !== undefined)
    verdicts.push(
      `softmax 1024x1024: ${softmax.medianMs.toFixed(3)} ms (target <= 1.5) -> ${softmax.medianMs <= 1.5 ? 'MET' : 'MISSED'}`,
    );
  const cosine =
    find(rows, '1thr', 'cosine 1x768 vs 16384 targets') ?? find(rows, 'relaxed', 'cosine 1x768 vs 16384 targets');
  if (cosine !== undefined)
    verdicts.push(
      `cosine 768 x 16,384 resident targets, one thread (kernel): ${cosine.medianMs.toFixed(3)} ms (target <= 2) -> ${cosine.medianMs <= 2 ? 'MET' : 'MISSED'}`,
    );
  const f32 = find(rows, 'relaxed', 'matvec f32 1x4096 . 4096x4096');
  const q4 = find(rows, 'relaxed', 'matvec q4_0 1x4096 . [4096, 4096]');
  if (f32 !== undefined && q4 !== undefined) {
    verdicts.push(
      `Q4_0 mat-vec 4096x4096: ${q4.medianMs.toFixed(3)} ms vs f32 ${f32.medianMs.toFixed(3)} ms (${(f32.medianMs / q4.medianMs).toFixed(2)}x; target: faster) -> ${q4.medianMs < f32.medianMs ? 'MET' : 'MISSED'}`,
    );
  }
  return verdicts;
}

function seriesOf(
  measurements: readonly MatmulMeasurement[],
  engine: string,
  threads: number,
  y: (m: MatmulMeasurement) => number,
): PlotSeries {
  return {
    label: `${engine}, ${threads} thread${threads > 1 ? 's' : ''}`,
    points: measurements.filter((m) => m.engine === engine && m.threads === threads).map((m) => ({ x: m.n, y: y(m) })),
    dashed: threads > 1,
  };
}

const ENGINES: ReadonlyArray<readonly [string, number]> = [
  ['tandem-wasm', 1],
  ['tfjs-backend-wasm', 1],
  ['onnxruntime-web', 1],
  ['plain-js', 1],
  ['tandem-wasm', 2],
  ['onnxruntime-web', 2],
];

/** Where Tandem's line crosses each other engine's at the same thread count. */
function crossovers(measurements: readonly MatmulMeasurement[], y: (m: MatmulMeasurement) => number): PlotMarker[] {
  const markers: PlotMarker[] = [];
  for (const [engine, threads] of ENGINES) {
    if (engine === 'tandem-wasm') continue;
    const x = crossoverX(
      seriesOf(measurements, 'tandem-wasm', threads, y).points,
      seriesOf(measurements, engine, threads, y).points,
    );
    if (x !== undefined) markers.push({ label: `Tandem = ${engine} (${threads}t) at n~${Math.round(x)}`, x });
  }
  return markers;
}

function plots(measurements: readonly MatmulMeasurement[], kernelRows: readonly KernelRow[]): LineChart[] {
  const peakOf = (build: string): number =>
    numberBefore(
      kernelRows.find((r) => r.build === build && r.measurement.startsWith('peak'))?.detail ?? '',
      'GFLOP/s',
    );
  const [fmaPeak, plainPeak] = [peakOf('relaxed'), peakOf('simd')];
  const kernelSeries = (build: string, label: string): PlotSeries => ({
    label,
    points: kernelRows
      .filter((r) => r.build === build && Number.isFinite(matmulSize(r.measurement)))
      .map((r) => ({ x: matmulSize(r.measurement), y: numberBefore(r.detail, 'GFLOP/s') })),
  });
  const gflops = (m: MatmulMeasurement): number => m.gflops;
  const speedups = kernelRows
    .filter((r) => r.build === '2thr' && Number.isFinite(matmulSize(r.measurement)))
    .map((r) => ({ x: matmulSize(r.measurement), y: numberBefore(r.detail, 'x one thread') }));
  return [
    {
      id: 'matmul-gflops',
      title: 'f32 matmul n x n: GFLOP/s per engine (whole call, result in JS)',
      xLabel: 'n',
      yLabel: 'GFLOP/s',
      xLog: true,
      yLog: true,
      series: [
        ...ENGINES.map(([engine, threads]) => seriesOf(measurements, engine, threads, gflops)),
        kernelSeries('relaxed', 'tandem kernel only (relaxed), 1 thread'),
      ],
      ceilings: [
        { label: `1-core f32x4 FMA peak, measured: ${fmaPeak.toFixed(1)}`, y: fmaPeak },
        { label: `1-core f32x4 mul+add peak, measured: ${plainPeak.toFixed(1)}`, y: plainPeak },
        { label: `2-core FMA peak: ${(2 * fmaPeak).toFixed(1)}`, y: 2 * fmaPeak },
      ].filter((c) => Number.isFinite(c.y)),
      markers: crossovers(measurements, gflops),
    },
    {
      id: 'matmul-latency',
      title: 'f32 matmul n x n: median call time per engine',
      xLabel: 'n',
      yLabel: 'ms per call',
      xLog: true,
      yLog: true,
      series: ENGINES.map(([engine, threads]) => seriesOf(measurements, engine, threads, (m) => m.stats.median)),
      markers: crossovers(measurements, (m) => 1 / m.stats.median),
    },
    {
      id: 'thread-scaling',
      title: 'Tandem f32 matmul: 2 threads vs 1 (kernel time)',
      xLabel: 'n',
      yLabel: 'speedup (x one thread)',
      xLog: true,
      series: [{ label: 'tandem-wasm 2 threads / 1 thread', points: speedups }],
      ceilings: [
        { label: 'ideal 2.0x', y: 2 },
        { label: 'target 1.8x', y: 1.8 },
      ],
    },
  ];
}

/** Runs the kernel benchmark and the side-by-side comparisons. */
export default async function wasmSuite(): Promise<SuiteResult> {
  const threadLines = await runKernelBenchmark(['--single-threaded-gc'], ['--only', 'threads']);
  const lines = [...threadLines, ...(await runKernelBenchmark([], ['--only', SECTIONS_AFTER_THREADS, '--no-build']))];
  const kernelRows = parseKernelRows(lines);
  const matmul = await compareMatmul();
  const cosine = await compareCosine();
  const rows: Row[] = [
    ...kernelRows.map((r) => ({
      section: 'kernels',
      build: r.build,
      measurement: r.measurement,
      medianMs: r.medianMs,
      detail: r.detail,
    })),
    ...matmul.rows,
    ...cosine.rows,
  ];
  return {
    suite: 'wasm',
    rows,
    verdicts: [
      lines.find((l) => l.startsWith('cpu:')) ?? '',
      "kernels: median kernel time of repeated runs on resident tensors (builds simd, relaxed; 1thr/2thr = worker pool, simd build, measured first in a process of its own with --single-threaded-gc: V8's concurrent GC threads would otherwise take one of the 2 cores)",
      ...kernelVerdicts(kernelRows),
      'engines: whole calls with the result back in JS memory, same process, alternating blocks per size (Tandem: engine.matmul + read on resident inputs)',
      ...matmul.verdicts,
      ...cosine.verdicts,
    ],
    plots: plots(matmul.measurements, kernelRows),
  };
}
