import { describe, expect, it } from 'vitest';
import { crossoverX, type LineChart } from './plot.ts';
import { project, renderSvg, ticks } from './svg.ts';

const chart: LineChart = {
  id: 'demo',
  title: 'A <b> & "c"',
  xLabel: 'n',
  yLabel: 'GFLOP/s',
  xLog: true,
  yLog: true,
  series: [
    {
      label: 'fast',
      points: [
        { x: 1000, y: 40 },
        { x: 100, y: 10 },
      ],
    },
    {
      label: 'slow',
      points: [
        { x: 100, y: 20 },
        { x: 1000, y: 20 },
        { x: 500, y: 0 },
      ],
      dashed: true,
    },
  ],
  ceilings: [{ label: 'peak 66', y: 66 }],
  markers: [{ label: 'crossover', x: 316 }],
};

describe('renderSvg', () => {
  const svg = renderSvg(chart);

  it('draws one polyline per series, sorted by x, skipping points a log axis cannot show', () => {
    const lines = [...svg.matchAll(/<polyline class="series"[^>]*points="([^"]*)"/g)].map((m) =>
      (m[1] ?? '').split(' '),
    );
    expect(lines.map((l) => l.length)).toEqual([2, 2]);
    const xs = lines[0]?.map((p) => Number(p.split(',')[0])) ?? [];
    expect(xs[0]).toBeLessThan(xs[1] ?? 0);
    expect(svg).toContain('stroke-dasharray="6 4" points=');
  });

  it('draws the ceiling as a horizontal line and the marker as a vertical one, with their labels', () => {
    const ceiling = /<line class="ceiling" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"/.exec(svg);
    expect(ceiling?.[2]).toBe(ceiling?.[4]);
    expect(Number(ceiling?.[3])).toBeGreaterThan(Number(ceiling?.[1]));
    const marker = /<line class="marker" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"/.exec(svg);
    expect(marker?.[1]).toBe(marker?.[3]);
    expect(svg).toContain('>peak 66<');
    expect(svg).toContain('>crossover<');
  });

  it('escapes text and labels log axes', () => {
    expect(svg).toContain('A &lt;b&gt; &amp; &quot;c&quot;');
    expect(svg).toContain('n (log)');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  });
});

describe('axes', () => {
  it('projects log values geometrically', () => {
    const axis = { min: 10, max: 1000, log: true, from: 0, to: 200 };
    expect(project(axis, 100)).toBeCloseTo(100, 9);
    expect(project({ ...axis, log: false, min: 0, max: 100 }, 25)).toBeCloseTo(50, 9);
  });

  it('puts log ticks at 1-2-5 per decade and linear ticks at nice steps', () => {
    expect(ticks(90, 1100, true)).toEqual([100, 200, 500, 1000]);
    expect(ticks(0, 1, false)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });
});

describe('crossoverX', () => {
  it('finds where two series change order, interpolated geometrically', () => {
    const a = [
      { x: 100, y: 10 },
      { x: 1000, y: 40 },
    ];
    const b = [
      { x: 100, y: 20 },
      { x: 1000, y: 20 },
    ];
    expect(crossoverX(a, b)).toBeCloseTo(10 ** 2.5, 6);
    expect(crossoverX(a, b, false)).toBeCloseTo(100 + 900 / 3, 6);
  });

  it('is undefined when the series never cross', () => {
    expect(
      crossoverX(
        [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
        ],
        [
          { x: 1, y: 3 },
          { x: 2, y: 4 },
        ],
      ),
    ).toBeUndefined();
  });
});

describe('line chart options', () => {
  it('puts labelled ticks where asked, honours fixed ranges and leaves dots out of dense series', () => {
    const svg = renderSvg({
      id: 'o',
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      xTicks: [
        { x: 2, label: 'two' },
        { x: 50, label: 'outside' },
      ],
      xRange: [0, 10],
      yRange: [0, 100],
      series: [
        {
          label: 's',
          points: [
            { x: 1, y: 10 },
            { x: 2, y: 20 },
          ],
          dots: false,
        },
      ],
    });
    expect(svg).toContain('>two<');
    expect(svg).not.toContain('>outside<');
    expect(svg).not.toContain('<circle');
    const xs = (/points="([^"]*)"/.exec(svg)?.[1] ?? '').split(' ').map((p) => Number(p.split(',')[0]));
    expect((xs[1] ?? 0) - (xs[0] ?? 0)).toBeCloseTo((900 - 72 - 260) / 10, 0);
  });
});
