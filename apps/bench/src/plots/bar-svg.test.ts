import { describe, expect, it } from 'vitest';
import type { BarChart } from './plot.ts';
import { renderSvg } from './svg.ts';

const chart: BarChart = {
  kind: 'bar',
  id: 'phases',
  title: 'Phases <tiny>',
  yLabel: 'ms',
  yLog: true,
  groups: ['prefill 128', 'decode'],
  series: [
    { label: 'cpu-only', values: [10, 2] },
    { label: 'gpu-only', values: [null, 200] },
    { label: 'auto', values: [11, Number.NaN] },
  ],
  ceilings: [{ label: 'target', y: 5 }],
};

function bars(svg: string): Array<{ x: number; y: number; height: number; fill: string }> {
  return [
    ...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="([^"]+)"/g),
  ].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    height: Number(m[3]),
    fill: m[4] ?? '',
  }));
}

describe('renderSvg of a bar chart', () => {
  const svg = renderSvg(chart);

  it('draws one bar per drawable value, in group then series order, and notes the missing ones', () => {
    const drawn = bars(svg);
    expect(drawn).toHaveLength(4);
    expect(drawn.map((b) => b.fill)).toEqual(['#1f77b4', '#2ca02c', '#1f77b4', '#d62728']);
    expect(drawn.map((b) => b.x)).toEqual([...drawn.map((b) => b.x)].sort((p, q) => p - q));
    expect([...svg.matchAll(/class="missing"/g)]).toHaveLength(2);
  });

  it('makes bar heights grow with the value on the log axis, all standing on the same base line', () => {
    const [cpuPrefill, autoPrefill, cpuDecode, gpuDecode] = bars(svg);
    const base = (b: { y: number; height: number } | undefined): number => (b?.y ?? 0) + (b?.height ?? 0);
    expect(new Set([cpuPrefill, autoPrefill, cpuDecode, gpuDecode].map(base)).size).toBe(1);
    expect(cpuDecode?.height ?? 0).toBeLessThan(cpuPrefill?.height ?? 0);
    expect(cpuPrefill?.height ?? 0).toBeLessThan(autoPrefill?.height ?? 0);
    expect(autoPrefill?.height ?? 0).toBeLessThan(gpuDecode?.height ?? 0);
    // log scale: 10 -> 200 is log10(20) decades, 2 -> 10 is log10(5): heights differ by those ratios
    const perDecade = ((gpuDecode?.height ?? 0) - (cpuPrefill?.height ?? 0)) / Math.log10(20);
    expect((cpuPrefill?.height ?? 0) - (cpuDecode?.height ?? 0)).toBeCloseTo(perDecade * Math.log10(5), 0);
  });

  it('writes values above wide bars, the legend, the ceiling and escaped text', () => {
    expect(svg).toContain('>200<');
    expect(svg).toContain('>gpu-only<');
    expect(svg).toContain('<line class="ceiling"');
    expect(svg).toContain('Phases &lt;tiny&gt;');
    expect(svg).toContain('ms (log)');
  });

  it('turns group names vertical and grows the chart when they do not fit under their slot', () => {
    const many: BarChart = {
      kind: 'bar',
      id: 'r',
      title: 't',
      yLabel: 'x',
      groups: Array.from({ length: 60 }, (_, i) => `a rather long case name ${i}`),
      series: [{ label: 's', values: Array.from({ length: 60 }, () => 1) }],
    };
    const wide = renderSvg(many);
    const [, width, height] = /width="(\d+(?:\.\d+)?)" height="(\d+(?:\.\d+)?)"/.exec(wide) ?? [];
    expect(Number(width)).toBeGreaterThan(900);
    expect(Number(height)).toBeGreaterThan(440);
    expect([...wide.matchAll(/rotate\(-90\)" text-anchor="end"/g)]).toHaveLength(60);
    expect(bars(wide)).toHaveLength(60);
  });

  it('draws bars below flagBelow in the warning colour and says so in the legend', () => {
    const svg = renderSvg({
      kind: 'bar',
      id: 'f',
      title: 't',
      yLabel: 'ratio',
      groups: ['a', 'b'],
      series: [{ label: 's', values: [0.9, 1.1] }],
      flagBelow: 0.97,
    });
    expect(bars(svg).map((b) => b.fill)).toEqual(['#e8590c', '#1f77b4']);
    expect(svg).toContain('>below 0.97<');
  });
});
