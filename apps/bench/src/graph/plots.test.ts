import { describe, expect, it } from 'vitest';
import type { BarChart } from '../plots/plot.ts';
import type { Row } from '../report.ts';
import { graphPlots, sizeId } from './plots.ts';

const rows: Row[] = [
  { size: 'tiny q4_0', phase: 'prefill 128', strategy: 'cpu-only', medianMs: 13, bytesPerToken: 3456 },
  { size: 'tiny q4_0', phase: 'prefill 128', strategy: 'gpu-only', medianMs: 3400, bytesPerToken: 3456 },
  { size: 'tiny q4_0', phase: 'prefill 128', strategy: 'auto', medianMs: 12, bytesPerToken: 3456 },
  { size: 'tiny q4_0', phase: 'prefill 128', strategy: 'split', medianMs: 4300, bytesPerToken: 39168 },
  { size: 'tiny q4_0', phase: 'decode @512', strategy: 'cpu-only', medianMs: 3.5, bytesPerToken: 1024 },
  { size: 'tiny q4_0', phase: 'decode @512', strategy: 'auto', medianMs: 3.2, bytesPerToken: 2048 },
  { size: '7B q4_0', phase: 'prefill 128', strategy: 'cpu-only', medianMs: 960, bytesPerToken: 49152 },
  { size: '7B q4_0', phase: 'prefill 128', strategy: 'gpu-only', note: 'not run' },
  { size: '7B q4_0', phase: 'prefill 128', strategy: 'auto', medianMs: 890, bytesPerToken: 49152 },
  { size: 'tiny q4_0', phase: 'mixed: prefill 128 + 32 decode', strategy: 'auto', medianMs: 104 },
  { size: '7B q4_0', phase: 'reference check', strategy: 'auto', maxRelError: 1e-7 },
];

describe('graphPlots', () => {
  const charts = graphPlots(rows);
  const bars = charts.filter((c): c is BarChart => c.kind === 'bar');

  it('draws a chart per size with the phases as groups and cpu-only / gpu-only / auto as bars, nulls where not run', () => {
    expect(bars.map((c) => c.id)).toEqual(['phases-tiny-q4-0', 'phases-7b-q4-0', 'bytes-per-token']);
    const tiny = bars[0];
    expect(tiny?.groups).toEqual(['prefill 128', 'decode @512']);
    expect(tiny?.series.map((s) => [s.label, s.values])).toEqual([
      ['cpu-only', [13, 3.5]],
      ['gpu-only', [3400, null]],
      ['auto', [12, 3.2]],
    ]);
    expect(bars[1]?.series[1]?.values).toEqual([null]);
  });

  it('draws bytes per token in KiB for auto and the naive placements, per size and phase', () => {
    const bytes = bars[2];
    expect(bytes?.groups).toEqual(['tiny q4_0 prefill 128', 'tiny q4_0 decode @512', '7B q4_0 prefill 128']);
    expect(bytes?.series.map((s) => s.values)).toEqual([
      [3.375, 2, 48],
      [38.25, null, null],
      [null, null, null],
    ]);
  });

  it('makes ids out of size labels', () => {
    expect(sizeId('7B f32')).toBe('7b-f32');
  });
});
