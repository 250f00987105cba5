// The memory suite's charts, from its rows alone: recall@10 vs queries/s for each HNSW library (the classic ANN
// curve, one point per ef), brute-force top-10 latency per backend, and spreading activation ms per hop per backend.
import type { BarChart, Chart, LineChart, PlotPoint } from '../plots/plot.ts';
import type { Row } from '../report.ts';

function text(row: Row, key: string): string {
  const v = row[key];
  return typeof v === 'string' ? v : '';
}

function num(row: Row, key: string): number | undefined {
  const v = row[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function section(rows: readonly Row[], name: string): Row[] {
  return rows.filter((r) => text(r, 'section') === name);
}

function annCurve(rows: readonly Row[], recallTarget: number): LineChart {
  const single = section(rows, 'hnsw single query');
  const libraries = [...new Set(single.map((r) => text(r, 'library')))];
  const curve = (library: string): PlotPoint[] =>
    single.flatMap((r) => {
      const [x, y] = [num(r, 'recallAt10'), num(r, 'queriesPerS')];
      return text(r, 'library') !== library || x === undefined || y === undefined ? [] : [{ x, y }];
    });
  const recalls = single.map((r) => num(r, 'recallAt10') ?? NaN).filter(Number.isFinite);
  const low = Math.min(recallTarget, ...recalls);
  return {
    id: 'recall-vs-qps',
    title: 'HNSW single-query search: recall@10 vs queries/s (one point per ef; up and right is better)',
    xLabel: 'recall@10',
    yLabel: 'queries/s, one thread',
    yLog: true,
    xRange: [Math.max(0, Math.floor(low * 20) / 20 - 0.025), 1],
    series: libraries.map((library) => ({ label: library, points: curve(library) })),
    markers: [{ label: `recall target ${recallTarget}`, x: recallTarget }],
  };
}

function perBackendBars(
  rows: readonly Row[],
  name: string,
  field: string,
  id: string,
  title: string,
  yLabel: string,
): BarChart | undefined {
  const measured = section(rows, name).filter((r) => num(r, field) !== undefined);
  if (measured.length === 0) return undefined;
  return {
    kind: 'bar',
    id,
    title,
    yLabel,
    yLog: true,
    groups: measured.map((r) => text(r, 'backend')),
    series: [{ label: yLabel, values: measured.map((r) => num(r, field) ?? null) }],
  };
}

/** Every chart of the memory suite. Rows need section, library/backend and the measured fields. */
export function memoryPlots(rows: readonly Row[], recallTarget: number): Chart[] {
  const vectors = section(rows, 'brute-force top-10')
    .map((r) => num(r, 'vectors'))
    .find((v) => v !== undefined);
  const hops = section(rows, 'spreading activation').find((r) => num(r, 'nodes') !== undefined);
  const charts: Array<Chart | undefined> = [
    section(rows, 'hnsw single query').length > 0 ? annCurve(rows, recallTarget) : undefined,
    perBackendBars(
      rows,
      'brute-force top-10',
      'medianMs',
      'brute-force',
      `Brute-force top-10 of one query over ${vectors ?? '?'} vectors: median per backend ('auto' = the scheduler's pick)`,
      'ms per query',
    ),
    perBackendBars(
      rows,
      'spreading activation',
      'msPerHop',
      'spreading',
      `Spreading activation over WordNet (${hops === undefined ? '?' : `${num(hops, 'nodes')} nodes, ${num(hops, 'edges')} edges`}): ms per hop per backend`,
      'ms per hop',
    ),
  ];
  return charts.filter((c): c is Chart => c !== undefined);
}
