// The graph suite's charts, from its rows alone: per model size, the median time of each phase under cpu-only,
// gpu-only and auto (bars, log scale: a software GPU is orders of magnitude slower); and bytes moved per token
// under auto against the naive placements (split: ggml's fixed rule; per-op: greedy per node).
import type { BarChart, Chart } from '../plots/plot.ts';
import type { Row } from '../report.ts';

/** The strategies of the time charts, in bar order. */
const TIME_STRATEGIES = ['cpu-only', 'gpu-only', 'auto'] as const;
/** The strategies of the bytes chart, in bar order. */
const BYTES_STRATEGIES = ['auto', 'split', 'per-op'] as const;

function text(row: Row, key: string): string {
  const v = row[key];
  return typeof v === 'string' ? v : '';
}

function numberOr(row: Row | undefined, key: string): number | null {
  const v = row?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Rows of the measured phases (prefill / decode), not the mixed run or the reference check. */
function phaseRows(rows: readonly Row[]): Row[] {
  return rows.filter((r) => /^(prefill|decode)/.test(text(r, 'phase')));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function find(rows: readonly Row[], size: string, phase: string, strategy: string): Row | undefined {
  return rows.find((r) => text(r, 'size') === size && text(r, 'phase') === phase && text(r, 'strategy') === strategy);
}

/** A chart id from a size label ('7B q4_0' -> '7b-q4-0'). */
export function sizeId(size: string): string {
  return size
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

function timeChart(rows: readonly Row[], size: string): BarChart {
  const phases = unique(rows.filter((r) => text(r, 'size') === size).map((r) => text(r, 'phase')));
  const series = TIME_STRATEGIES.map((strategy) => ({
    label: strategy,
    values: phases.map((phase) => numberOr(find(rows, size, phase, strategy), 'medianMs')),
  }));
  const missing = series.some((s) => s.values.includes(null));
  return {
    kind: 'bar',
    id: `phases-${sizeId(size)}`,
    title: `Decoder block ${size}: median time per phase${missing ? ' (not run: too slow on this GPU, see the rows)' : ''}`,
    yLabel: 'ms per phase (median)',
    yLog: true,
    groups: phases,
    series,
  };
}

function bytesChart(rows: readonly Row[]): BarChart {
  const cells = unique(rows.map((r) => `${text(r, 'size')}|${text(r, 'phase')}`));
  const at = (cell: string, strategy: string): number | null => {
    const [size = '', phase = ''] = cell.split('|');
    const bytes = numberOr(find(rows, size, phase, strategy), 'bytesPerToken');
    return bytes === null ? null : bytes / 1024;
  };
  return {
    kind: 'bar',
    id: 'bytes-per-token',
    title: 'Bytes moved per token (host<->backend copies, KV cache included): auto vs naive placements',
    yLabel: 'KiB per token',
    yLog: true,
    groups: cells.map((c) => c.replace('|', ' ')),
    series: BYTES_STRATEGIES.map((strategy) => ({
      label:
        strategy === 'auto'
          ? 'auto'
          : strategy === 'split'
            ? 'split (ggml-style fixed rule)'
            : 'per-op (greedy per node)',
      values: cells.map((c) => at(c, strategy)),
    })),
  };
}

/** Every chart of the graph suite. Rows need size, phase, strategy, medianMs and bytesPerToken. */
export function graphPlots(rows: readonly Row[]): Chart[] {
  const measured = phaseRows(rows);
  const sizes = unique(measured.map((r) => text(r, 'size')));
  return [...sizes.map((size) => timeChart(measured, size)), bytesChart(measured)];
}
