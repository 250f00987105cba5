// The suite's plots: matmul TFLOP/s vs n (ours, tfjs, cuBLAS ceiling), latency vs size webgpu vs wasm with the
// crossover marked, and cosine GB/s vs N against the measured copy peak.
import type { SampleStats } from '@tandem/core';
import { crossoverX, type LineChart, type PlotMarker, type PlotPoint } from '../plots/plot.ts';
import type { CopyPeak } from './copy-peak.ts';
import { cosineTbps, type CosineFigures } from './cosine-sweep.ts';
import type { CublasCeiling } from './cublas.ts';
import type { Outcome } from './guard.ts';
import type { LatencyPoint } from './latency.ts';
import { matmulTflops, type EngineFigures, type MatmulSize } from './matmul-sweep.ts';
import { latencyPoints } from './verdicts.ts';

function tflopsPoints(
  sizes: readonly MatmulSize[],
  pick: (s: MatmulSize) => Outcome<EngineFigures>,
  time: (f: EngineFigures) => SampleStats | undefined,
): PlotPoint[] {
  return sizes.flatMap((s) => {
    const r = pick(s);
    return r.ok ? [{ x: s.n, y: matmulTflops(s.n, time(r.value)) }] : [];
  });
}

/** TFLOP/s vs n. */
export function matmulChart(sizes: readonly MatmulSize[], cublas: Outcome<CublasCeiling>): LineChart {
  const ours = (s: MatmulSize): Outcome<EngineFigures> => s.ours;
  const tfjs = (s: MatmulSize): Outcome<EngineFigures> => s.tfjs;
  return {
    id: 'matmul-tflops',
    title: 'f32 matmul n x n on WebGPU (Dawn): TFLOP/s, kernel and whole call',
    xLabel: 'n',
    yLabel: 'TFLOP/s',
    xLog: true,
    yLog: true,
    series: [
      { label: 'Tandem kernel', points: tflopsPoints(sizes, ours, (f) => f.kernel) },
      { label: 'Tandem call + read', points: tflopsPoints(sizes, ours, (f) => f.wall), dashed: true },
      { label: 'tfjs-webgpu kernelMs', points: tflopsPoints(sizes, tfjs, (f) => f.kernel) },
      { label: 'tfjs-webgpu matMul + data()', points: tflopsPoints(sizes, tfjs, (f) => f.wall), dashed: true },
    ],
    ceilings: cublas.ok
      ? [{ label: `cuBLAS SGEMM n=4096: ${cublas.value.sgemm4096Tflops.toFixed(1)}`, y: cublas.value.sgemm4096Tflops }]
      : [],
  };
}

/** Latency vs size for one op, webgpu vs wasm, crossover marked. */
export function latencyChart(points: readonly LatencyPoint[], op: 'matmul' | 'add'): LineChart {
  const gpu = latencyPoints(points, op, 'webgpu');
  const cpu = latencyPoints(points, op, 'wasm');
  const x = crossoverX(gpu, cpu);
  const unit = op === 'matmul' ? 'n' : 'elements';
  const markers: PlotMarker[] = x === undefined ? [] : [{ label: `crossover ${unit}~${Math.round(x)}`, x }];
  return {
    id: `latency-${op}`,
    title: `${op === 'matmul' ? 'f32 matmul n x n' : 'f32 add of N elements'}: median call + read, WebGPU vs WASM (engine, { only })`,
    xLabel: op === 'matmul' ? 'n' : 'elements',
    yLabel: 'ms per call',
    xLog: true,
    yLog: true,
    series: [
      { label: 'tandem-webgpu', points: gpu },
      { label: 'tandem-wasm', points: cpu },
    ],
    markers,
  };
}

/** Cosine GB/s vs N with the copy peak as ceiling. */
export function cosineChart(
  rows: ReadonlyArray<Outcome<CosineFigures>>,
  copyPeak: Outcome<CopyPeak>,
  cublas: Outcome<CublasCeiling>,
): LineChart {
  const points = rows.flatMap((r) => (r.ok ? [{ x: r.value.count, y: cosineTbps(r.value) * 1000 }] : []));
  const ceilings = [
    ...(copyPeak.ok
      ? [
          {
            label: `device copy peak (read+write): ${(copyPeak.value.tbps * 1000).toFixed(0)} GB/s`,
            y: copyPeak.value.tbps * 1000,
          },
        ]
      : []),
    ...(cublas.ok && cublas.value.gemvTbps !== undefined
      ? [
          {
            label: `cuBLAS GEMV 1M x 768: ${(cublas.value.gemvTbps * 1000).toFixed(0)} GB/s`,
            y: cublas.value.gemvTbps * 1000,
          },
        ]
      : []),
  ];
  return {
    id: 'cosine-bandwidth',
    title: 'cosine similarity, one 768-d query vs N resident targets: bytes of targets / kernel time',
    xLabel: 'N targets',
    yLabel: 'GB/s',
    xLog: true,
    yLog: true,
    series: [{ label: 'Tandem WebGPU kernel', points }],
    ceilings,
  };
}
