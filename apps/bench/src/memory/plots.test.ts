import { describe, expect, it } from 'vitest';
import type { BarChart, LineChart } from '../plots/plot.ts';
import type { Row } from '../report.ts';
import { memoryPlots } from './plots.ts';

const rows: Row[] = [
  { section: 'hnsw build', library: 'tandem', buildS: 300 },
  { section: 'hnsw single query', library: 'tandem', ef: 10, recallAt10: 0.75, queriesPerS: 10000 },
  { section: 'hnsw single query', library: 'tandem', ef: 96, recallAt10: 0.952, queriesPerS: 2200 },
  { section: 'hnsw single query', library: 'hnswlib-node', ef: 10, recallAt10: 0.76, queriesPerS: 20000 },
  { section: 'hnsw single query', library: 'hnswlib-node', ef: 96, recallAt10: 0.953, queriesPerS: 4300 },
  { section: 'brute-force top-10', backend: 'wasm', vectors: 341479, medianMs: 6.6 },
  { section: 'brute-force top-10', backend: 'webgpu', vectors: 341479, error: 'too large' },
  { section: 'brute-force top-10', backend: 'auto', vectors: 341479, medianMs: 6.9 },
  { section: 'spreading activation', backend: 'wasm', nodes: 117659, edges: 361638, msPerHop: 0.85 },
  { section: 'spreading activation', backend: 'webgpu', nodes: 117659, edges: 361638, msPerHop: 81 },
];

describe('memoryPlots', () => {
  const charts = memoryPlots(rows, 0.95);

  it('draws the recall vs queries/s curve per library, the target marked, x from just below the lowest recall', () => {
    const curve = charts.find((c): c is LineChart => c.kind !== 'bar');
    expect(curve?.id).toBe('recall-vs-qps');
    expect(curve?.series.map((s) => [s.label, s.points])).toEqual([
      [
        'tandem',
        [
          { x: 0.75, y: 10000 },
          { x: 0.952, y: 2200 },
        ],
      ],
      [
        'hnswlib-node',
        [
          { x: 0.76, y: 20000 },
          { x: 0.953, y: 4300 },
        ],
      ],
    ]);
    expect(curve?.markers?.[0]?.x).toBe(0.95);
    expect(curve?.xRange?.[0]).toBeCloseTo(0.725, 12); // 0.75 rounded down to 0.05, less a margin
    expect(curve?.xRange?.[1]).toBe(1);
  });

  it('draws brute-force latency and spreading ms/hop per measured backend as bars', () => {
    const bars = charts.filter((c): c is BarChart => c.kind === 'bar');
    expect(bars.map((c) => [c.id, c.groups, c.series[0]?.values])).toEqual([
      ['brute-force', ['wasm', 'auto'], [6.6, 6.9]],
      ['spreading', ['wasm', 'webgpu'], [0.85, 81]],
    ]);
    expect(bars[1]?.title).toContain('117659 nodes, 361638 edges');
  });

  it('leaves out charts without data', () => {
    expect(memoryPlots([], 0.95)).toEqual([]);
  });
});
