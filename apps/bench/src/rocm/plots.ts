// The suite's charts: matmul TFLOP/s vs n (kernel and engine wall) under the cuBLAS ceiling and the target, and a
// roofline-style chart of the memory-bound kernels (GB/s vs FLOP per byte) under the measured and nominal peaks.
import type { LineChart, PlotCeiling } from '../plots/plot.ts';
import type { MatmulPoint } from './matmul-section.ts';
import { matmulTflops } from './matmul-section.ts';
import type { StreamFigure } from './stream-sections.ts';

/** Figures the charts draw besides the measurements. */
export interface ChartContext {
  /** "H100 ..." or "CPU emulation". */
  readonly deviceLabel: string;
  /** cuBLAS SGEMM 4096, TFLOP/s, when measured. */
  readonly cublasTflops: number | undefined;
  /** The matmul target, TFLOP/s. */
  readonly matmulTarget: number;
  /** Nominal memory bandwidth, GB/s, when known. */
  readonly nominalGbps: number | undefined;
  /** Fraction of the measured peak the mat-vec targets. */
  readonly matvecTargetFraction: number;
}

/** TFLOP/s vs n. */
export function matmulChart(points: readonly MatmulPoint[], context: ChartContext): LineChart {
  const ceilings: PlotCeiling[] = [{ label: `target ${context.matmulTarget} TFLOP/s`, y: context.matmulTarget }];
  if (context.cublasTflops !== undefined)
    ceilings.push({
      label: `cuBLAS SGEMM 4096 (TF32 off): ${context.cublasTflops.toFixed(1)}`,
      y: context.cublasTflops,
    });
  return {
    id: 'matmul-tflops',
    title: `f32 matmul n x n on ${context.deviceLabel}: TFLOP/s (median)`,
    xLabel: 'n',
    yLabel: 'TFLOP/s',
    xLog: true,
    yLog: true,
    series: [
      {
        label: 'kernel (backend events)',
        points: points.map((p) => ({ x: p.n, y: matmulTflops(p.n, p.kernel.median) })),
      },
      {
        label: "engine {only:'rocm'} wall per call",
        points: points.map((p) => ({ x: p.n, y: matmulTflops(p.n, p.engine.median) })),
        dashed: true,
      },
    ],
    ceilings,
  };
}

/** GB/s vs FLOP/byte of each memory-bound kernel, under the measured streaming peak (the scale) and the nominal one. */
export function bandwidthChart(figures: readonly StreamFigure[], context: ChartContext): LineChart {
  const peak = figures.find((f) => f.name === 'scale')?.gbps;
  const ceilings: PlotCeiling[] = [];
  if (peak !== undefined) {
    ceilings.push({ label: `measured peak (scale): ${peak.toFixed(0)} GB/s`, y: peak });
    ceilings.push({
      label: `mat-vec target ${Math.round(context.matvecTargetFraction * 100)}% of it`,
      y: peak * context.matvecTargetFraction,
    });
  }
  if (context.nominalGbps !== undefined)
    ceilings.push({ label: `nominal: ${context.nominalGbps.toFixed(0)} GB/s`, y: context.nominalGbps });
  return {
    id: 'bandwidth',
    title: `Memory-bound kernels on ${context.deviceLabel}: GB/s (median kernel time) vs arithmetic intensity`,
    xLabel: 'FLOP per byte counted',
    yLabel: 'GB/s',
    xLog: true,
    yLog: true,
    series: figures.map((f) => ({
      label: `${f.name}: ${f.gbps.toFixed(f.gbps >= 10 ? 0 : 3)} GB/s`,
      points: [{ x: f.flops / f.bytes, y: f.gbps }],
    })),
    ceilings,
  };
}
