import { describe, expect, it } from 'vitest';
import type { BarChart, Chart, LineChart } from '../plots/plot.ts';
import type { Row } from '../report.ts';
import { dispatchPlots, familyId, sizeText } from './plots.ts';

const rows: Row[] = [
  {
    case: 'matmul 16',
    family: 'matmul',
    inputElements: 512,
    wasmMs: 0.01,
    webgpuMs: 1,
    autoMs: 0.011,
    autoVsBest: 0.95,
  },
  { case: 'matmul 256', family: 'matmul', inputElements: 131072, wasmMs: 1, webgpuMs: 2, autoMs: 1, autoVsBest: 1.01 },
  {
    case: 'matmul 1024',
    family: 'matmul',
    inputElements: 2097152,
    wasmMs: 64,
    webgpuMs: 8,
    autoMs: 8.1,
    autoVsBest: 0.99,
  },
  {
    case: 'quantizedMatmul q4_0 1x1024x1024',
    family: 'quantizedMatmul q4_0',
    inputElements: 1049600,
    wasmMs: 0.5,
    webgpuMs: 'n/a',
    autoMs: 0.5,
    autoVsBest: 1,
  },
];

function isLine(c: Chart): c is LineChart {
  return c.kind !== 'bar';
}

describe('dispatchPlots', () => {
  const charts = dispatchPlots(rows, ['wasm', 'webgpu']);

  it('leads with auto / best per case as bars against the 0.97 target', () => {
    expect(charts[0]?.kind).toBe('bar');
    const bars = charts.find((c): c is BarChart => c.kind === 'bar');
    expect(bars?.groups).toEqual(rows.map((r) => r['case']));
    expect(bars?.series[0]?.values).toEqual([0.95, 1.01, 0.99, 1]);
    expect(bars?.ceilings?.map((c) => c.y)).toEqual([0.97, 1]);
  });

  it('draws one latency chart per family with a line per backend and auto, and marks the crossover', () => {
    const lines = charts.filter(isLine);
    expect(lines.map((c) => c.id)).toEqual(['latency-matmul', 'latency-quantizedmatmul-q4-0']);
    const matmul = lines[0];
    expect(matmul?.series.map((s) => s.label)).toEqual(['wasm only', 'webgpu only', 'auto']);
    expect(matmul?.series[2]?.points).toEqual([
      { x: 512, y: 0.011 },
      { x: 131072, y: 1 },
      { x: 2097152, y: 8.1 },
    ]);
    expect(matmul?.xTicks?.map((t) => t.label)).toEqual(['16', '256', '1024']);
    // wasm/webgpu: log ratio -0.30 at 131072, +0.90 at 2097152 -> a quarter of the way, geometrically
    const x = matmul?.markers?.[0]?.x ?? 0;
    expect(Math.log(x)).toBeCloseTo(Math.log(131072) + 0.25 * Math.log(16), 6);
    const quantized = lines[1];
    expect(quantized?.series[1]?.points).toEqual([]); // 'n/a': not a point
    expect(quantized?.markers).toEqual([]);
    expect(quantized?.title).toContain('no crossover');
  });

  it('names families and sizes', () => {
    expect(familyId('quantizedMatmul q4_0')).toBe('quantizedmatmul-q4-0');
    expect(sizeText('add 64x1024', 'add')).toBe('64x1024');
    expect(sizeText('odd', 'add')).toBe('odd');
  });
});
