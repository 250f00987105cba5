// ROCm suite (issues #5 and #9): the HIP backend's headline figures through RocmBackend (kernel time from its
// events) and the engine ({ only: 'rocm' }): f32 matmul over n = 256..4096 against cuBLAS (cublas-ceiling.py),
// Q4_0 / Q8_0 mat-vec 4096 x 11008 and cosine 768-d x 1M against the measured streaming peak (1 GiB scale) and the
// nominal bandwidth, and the per-call overhead of a tiny kernel. Every result is checked on sampled entries
// against a CPU reference. With --gpu it loads the NVIDIA (or AMD) build; without, the CPU emulation at tiny sizes,
// whose figures are not GPU figures (every target NOT MEASURED). One failing measurement becomes a verdict.
import { errorMessage } from '@tandem/core';
import { progress, type Row, type SuiteOptions, type SuiteResult } from '../report.ts';
import {
  CUBLAS_CEILING_SCRIPT,
  runCublasCeiling,
  nvidiaSmiMemoryClockKHz,
  type CublasCeilings,
  type Outcome,
} from '../rocm/ceilings.ts';
import { nominalBandwidth } from '../rocm/figures.ts';
import { measureMatmul, matmulTflops, type MatmulSection } from '../rocm/matmul-section.ts';
import { measureOverhead, type OverheadSection } from '../rocm/overhead-section.ts';
import { bandwidthChart, matmulChart, type ChartContext } from '../rocm/plots.ts';
import { describeCheck } from '../sampled-check.ts';
import { addonPathsFor, openRocm, type RocmTarget } from '../rocm/setup.ts';
import { EMULATED_SIZES, GPU_SIZES } from '../rocm/sizes.ts';
import { measureCosine, measureMatvec, measureScale, type StreamFigure } from '../rocm/stream-sections.ts';
import { targetVerdict, type FigureSource } from '../rocm/verdicts.ts';

/** Issue #5's targets. */
const TARGETS = { matmulTflops: 25, cublasRatio: 0.5, matvecPeakFraction: 0.6, cosineTbps: 2 } as const;
/** The headline matmul size on a GPU. */
const HEADLINE_N = 4096;
const STEPS = 7 + 1;

async function attempt<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    return { ok: false, reason: `failed: ${errorMessage(error)}` };
  }
}

function ms(value: number): string {
  return value >= 1 ? `${value.toFixed(3)} ms` : `${(value * 1e3).toFixed(1)} us`;
}

function nominalGbps(target: RocmTarget, source: FigureSource): { gbps: number | undefined; how: string } {
  const fromRuntime = nominalBandwidth(target.device);
  if (fromRuntime !== undefined)
    return {
      gbps: fromRuntime / 1e9,
      how: `runtime: ${target.device.memoryClockKHz / 1e3} MHz x ${target.device.memoryBusWidthBits} bits x 2`,
    };
  if (source.kind !== 'gpu' || target.platform !== 'nvidia')
    return { gbps: undefined, how: 'the runtime reports no memory clock' };
  const smi = nvidiaSmiMemoryClockKHz();
  if (!smi.ok) return { gbps: undefined, how: `the runtime reports no memory clock and ${smi.reason}` };
  const fromSmi = nominalBandwidth({ memoryClockKHz: smi.value, memoryBusWidthBits: target.device.memoryBusWidthBits });
  return {
    gbps: fromSmi === undefined ? undefined : fromSmi / 1e9,
    how: `nvidia-smi: ${smi.value / 1e3} MHz x ${target.device.memoryBusWidthBits} bits x 2`,
  };
}

function matmulVerdicts(
  section: Outcome<MatmulSection>,
  cublas: Outcome<CublasCeilings>,
  source: FigureSource,
): string[] {
  const label = (n: number): string =>
    `f32 matmul ${HEADLINE_N}${n === HEADLINE_N ? '' : ` (run at n=${n})`} kernel (events)`;
  if (!section.ok)
    return [
      targetVerdict(
        { label: label(HEADLINE_N), measured: section.reason, target: TARGETS.matmulTflops, unit: 'TFLOP/s' },
        source,
      ),
    ];
  const failures = section.value.failures.map((f) => `f32 matmul ${f}`);
  const head = section.value.points.at(-1);
  if (head === undefined)
    return [
      targetVerdict(
        {
          label: label(HEADLINE_N),
          measured: `no size measured (${failures.join('; ')})`,
          target: TARGETS.matmulTflops,
          unit: 'TFLOP/s',
        },
        source,
      ),
      ...failures,
    ];
  const ours = matmulTflops(head.n, head.kernel.median);
  const k = head.kernel;
  const detail = `median ${ms(k.median)} (min ${ms(k.min)}, max ${ms(k.max)}, ${k.count} reps); engine wall ${ms(head.engine.median)} = ${matmulTflops(head.n, head.engine.median).toFixed(2)} TFLOP/s; check ${describeCheck(head.check)}`;
  const wrong = head.check.ok ? {} : { wrongResults: describeCheck(head.check) };
  const lines = [
    targetVerdict(
      { label: label(head.n), measured: ours, target: TARGETS.matmulTflops, unit: 'TFLOP/s', detail, ...wrong },
      source,
    ),
  ];
  const sweep = section.value.points
    .map((p) => `${p.n}: ${matmulTflops(p.n, p.kernel.median).toPrecision(3)}`)
    .join(', ');
  lines.push(
    `f32 matmul sweep, kernel TFLOP/s at the median: ${sweep}${source.kind === 'emulated' ? ' (CPU emulation, not GPU figures)' : ''}`,
  );
  const ratioLabel = `f32 matmul ${HEADLINE_N} ours / cuBLAS SGEMM (TF32 off)`;
  const ratio: number | string = !cublas.ok
    ? `cuBLAS skipped: ${cublas.reason}`
    : head.n !== HEADLINE_N
      ? `ours ran at n=${head.n}, cuBLAS at ${HEADLINE_N}`
      : ours / cublas.value.sgemm4096Tflops;
  const ratioDetail = cublas.ok
    ? `ours ${ours.toFixed(2)} vs cuBLAS ${cublas.value.sgemm4096Tflops.toFixed(2)} TFLOP/s on ${cublas.value.device}`
    : undefined;
  lines.push(
    targetVerdict(
      {
        label: ratioLabel,
        measured: ratio,
        target: TARGETS.cublasRatio,
        unit: 'x',
        ...(ratioDetail === undefined ? {} : { detail: ratioDetail }),
      },
      source,
    ),
  );
  return [...lines, ...failures];
}

function streamVerdicts(
  scale: Outcome<StreamFigure>,
  q4: Outcome<StreamFigure>,
  q8: Outcome<StreamFigure>,
  q4q8x: Outcome<StreamFigure>,
  cosine: Outcome<StreamFigure>,
  nominal: { gbps: number | undefined; how: string },
  source: FigureSource,
): string[] {
  const peak = scale.ok ? scale.value.gbps : undefined;
  const nominalText =
    nominal.gbps === undefined
      ? `nominal unknown (${nominal.how})`
      : `nominal ${nominal.gbps.toFixed(0)} GB/s (${nominal.how})`;
  const lines = [
    scale.ok
      ? `streaming peak measured by the scale: ${scale.value.row['measurement']}: ${scale.value.gbps.toFixed(peak !== undefined && peak >= 10 ? 0 : 3)} GB/s at the median ${ms(scale.value.kernel.median)}${nominal.gbps === undefined ? '' : ` = ${((100 * scale.value.gbps) / nominal.gbps).toFixed(0)}% of nominal`}; ${nominalText}; check ${describeCheck(scale.value.check)}`
      : `streaming peak NOT MEASURED: ${scale.reason}; ${nominalText}`,
  ];
  const q4Label = `Q4_0 mat-vec 4096x11008 kernel GB/s as % of the measured peak`;
  if (!q4.ok || peak === undefined)
    lines.push(
      targetVerdict(
        {
          label: q4Label,
          measured: q4.ok ? 'no measured peak to compare with' : q4.reason,
          target: 100 * TARGETS.matvecPeakFraction,
          unit: '%',
        },
        source,
      ),
    );
  else
    lines.push(
      targetVerdict(
        {
          label: q4Label,
          measured: (100 * q4.value.gbps) / peak,
          target: 100 * TARGETS.matvecPeakFraction,
          unit: '%',
          detail: matvecDetail(q4.value, peak, nominal.gbps),
          ...(q4.value.check.ok ? {} : { wrongResults: describeCheck(q4.value.check) }),
        },
        source,
      ),
    );
  const q4q8xLabel = `Q4_0 mat-vec 4096x11008 with the opt-in int8 activations (RocmBackend({ quantizedActivations: 'q8' })) kernel GB/s as % of the measured peak`;
  if (!q4q8x.ok || peak === undefined)
    lines.push(
      targetVerdict(
        {
          label: q4q8xLabel,
          measured: q4q8x.ok ? 'no measured peak to compare with' : q4q8x.reason,
          target: 100 * TARGETS.matvecPeakFraction,
          unit: '%',
        },
        source,
      ),
    );
  else
    lines.push(
      targetVerdict(
        {
          label: q4q8xLabel,
          measured: (100 * q4q8x.value.gbps) / peak,
          target: 100 * TARGETS.matvecPeakFraction,
          unit: '%',
          detail: matvecDetail(q4q8x.value, peak, nominal.gbps),
          ...(q4q8x.value.check.ok ? {} : { wrongResults: describeCheck(q4q8x.value.check) }),
        },
        source,
      ),
    );
  if (q8.ok)
    lines.push(
      `Q8_0 mat-vec 4096x11008 (comparison, no target): ${matvecDetail(q8.value, peak, nominal.gbps)}${source.kind === 'emulated' ? ' (CPU emulation, not GPU figures)' : ''}`,
    );
  else lines.push(`Q8_0 mat-vec 4096x11008 (comparison) NOT MEASURED: ${q8.reason}`);
  const cosineLabel = 'cosine 768-d x 1,000,000 resident targets, 1 query, kernel (target bytes / time)';
  if (!cosine.ok)
    lines.push(
      targetVerdict({ label: cosineLabel, measured: cosine.reason, target: TARGETS.cosineTbps, unit: 'TB/s' }, source),
    );
  else {
    const c = cosine.value;
    const detail = `median ${ms(c.kernel.median)} (min ${ms(c.kernel.min)}, max ${ms(c.kernel.max)}, ${c.kernel.count} reps); check ${describeCheck(c.check)}`;
    lines.push(
      targetVerdict(
        {
          label: cosineLabel,
          measured: c.gbps / 1e3,
          target: TARGETS.cosineTbps,
          unit: 'TB/s',
          detail,
          ...(c.check.ok ? {} : { wrongResults: describeCheck(c.check) }),
        },
        source,
      ),
    );
  }
  return lines;
}

function matvecDetail(f: StreamFigure, peak: number | undefined, nominal: number | undefined): string {
  const ofPeak = peak === undefined ? '' : `, ${((100 * f.gbps) / peak).toFixed(0)}% of measured peak`;
  const ofNominal = nominal === undefined ? '' : `, ${((100 * f.gbps) / nominal).toFixed(0)}% of nominal`;
  return `${f.gbps.toFixed(f.gbps >= 10 ? 0 : 3)} GB/s${ofPeak}${ofNominal}; median ${ms(f.kernel.median)} (min ${ms(f.kernel.min)}, max ${ms(f.kernel.max)}, ${f.kernel.count} reps); ${f.bytes} bytes (weights + x + out); check ${describeCheck(f.check)}`;
}

function overheadVerdict(overhead: Outcome<OverheadSection>, source: FigureSource): string {
  if (!overhead.ok) return `per-call overhead NOT MEASURED: ${overhead.reason}`;
  const o = overhead.value;
  const us = (v: number): string => `${(v * 1e3).toFixed(1)}`;
  const where = source.kind === 'emulated' ? ' (CPU emulation, not GPU figures)' : ` on ${source.device}`;
  return `per-call overhead, JS to a finished tiny kernel (no target)${where}: engine {only:'rocm'} median ${us(o.engineWall.median)} us, p99 ${us(o.engineWall.p99)} us; direct backend.run median ${us(o.backendWall.median)} us, p99 ${us(o.backendWall.p99)} us (${o.backendWall.count} calls); kernel (events) median ${us(o.backendKernel.median)} us; check ${describeCheck(o.check)}`;
}

/** Runs the suite. */
export default async function rocmSuite(options: SuiteOptions): Promise<SuiteResult> {
  const paths = addonPathsFor(options.gpu, process.env['TANDEM_ROCM_ADDON']);
  const opened = await openRocm(paths);
  if (!opened.ok) {
    const why = `no ROCm addon with a device loaded (${opened.reason})`;
    return {
      suite: 'rocm',
      rows: [{ section: 'setup', addons: paths.join(', '), error: opened.reason }],
      verdicts: [`every target NOT MEASURED: ${why}`],
    };
  }
  const target = opened.target;
  const source: FigureSource =
    target.platform === 'emulated' ? { kind: 'emulated' } : { kind: 'gpu', device: target.device.name };
  const sizes = source.kind === 'emulated' ? EMULATED_SIZES : GPU_SIZES;
  const rows: Row[] = [
    {
      section: 'setup',
      device: target.device.name,
      platform: target.platform,
      arch: target.device.arch,
      addon: target.addonPath,
      memoryGiB: target.device.totalMemory / 2 ** 30,
    },
  ];
  let step = 0;
  const advance = (): void => progress('rocm', ++step, STEPS + sizes.matmulSizes.length - 1);
  try {
    const matmul = await attempt(() => measureMatmul(target, sizes, () => advance()));
    const cublas = runCublasCeiling(CUBLAS_CEILING_SCRIPT, 120_000);
    advance();
    const scale = await attempt(() => measureScale(target, sizes));
    advance();
    const q4 = await attempt(() => measureMatvec(target, sizes, 'q4_0'));
    advance();
    const q8 = await attempt(() => measureMatvec(target, sizes, 'q8_0'));
    advance();
    const q4q8x = await attempt(() => measureMatvec(target, sizes, 'q4_0', 'q8'));
    advance();
    const cosine = await attempt(() => measureCosine(target, sizes));
    advance();
    const overhead = await attempt(() => measureOverhead(target, sizes));
    advance();
    const nominal = nominalGbps(target, source);
    if (matmul.ok) rows.push(...matmul.value.rows);
    rows.push(
      cublas.ok
        ? {
            section: 'ceiling',
            measurement: 'cuBLAS SGEMM 4096 (TF32 off, torch)',
            tflops: cublas.value.sgemm4096Tflops,
            device: cublas.value.device,
            scaleTbps: cublas.value.scaleTbps ?? NaN,
            gemv1Mx768Tbps: cublas.value.gemvTbps ?? NaN,
          }
        : { section: 'ceiling', measurement: 'cuBLAS SGEMM 4096', error: cublas.reason },
    );
    const streams = [scale, q4, q8, q4q8x, cosine];
    for (const s of streams) if (s.ok) rows.push(s.value.row);
    rows.push({
      section: 'bandwidth',
      measurement: 'nominal memory bandwidth',
      gbps: nominal.gbps ?? NaN,
      detail: nominal.how,
    });
    if (overhead.ok) rows.push(...overhead.value.rows);
    const figures = streams.flatMap((s) => (s.ok ? [s.value] : []));
    const context: ChartContext = {
      deviceLabel: source.kind === 'emulated' ? 'the CPU emulation of HIP (tiny sizes)' : source.device,
      cublasTflops: cublas.ok ? cublas.value.sgemm4096Tflops : undefined,
      matmulTarget: TARGETS.matmulTflops,
      nominalGbps: nominal.gbps,
      matvecTargetFraction: TARGETS.matvecPeakFraction,
    };
    const sourceLine =
      source.kind === 'emulated'
        ? `device: CPU emulation of HIP (${target.addonPath}); tiny sizes (matmul n=${sizes.matmulSizes.join(', ')}, mat-vec ${sizes.matvecCols}x${sizes.matvecRows}, cosine ${sizes.cosineDim} x ${sizes.cosineTargets}): these are the emulation's figures, not a GPU's; run with --gpu on the GPU machine for issue #5's`
        : `device: ${target.device.name} (${target.device.arch}, ${target.platform} build ${target.addonPath}); issue #5 sizes; kernel times from the backend's events, medians`;
    return {
      suite: 'rocm',
      rows,
      verdicts: [
        sourceLine,
        ...matmulVerdicts(matmul, cublas, source),
        ...streamVerdicts(scale, q4, q8, q4q8x, cosine, nominal, source),
        overheadVerdict(overhead, source),
      ],
      plots: [matmulChart(matmul.ok ? matmul.value.points : [], context), bandwidthChart(figures, context)],
    };
  } finally {
    await target.engine.dispose();
    await target.backend.dispose();
  }
}
