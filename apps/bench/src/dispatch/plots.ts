// The dispatch suite's charts, from its rows alone: per op family, median call time vs size for each single backend
// and auto (crossovers between single backends marked), and auto / best single backend per case against the target.
import {
  crossoverX,
  type BarChart,
  type Chart,
  type LineChart,
  type PlotMarker,
  type PlotPoint,
} from '../plots/plot.ts';
import type { Row } from '../report.ts';

/** auto must reach this share of the best single backend's speed in every case. */
export const AUTO_TARGET = 0.97;

function numberField(row: Row, key: string): number | undefined {
  const v = row[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function textField(row: Row, key: string): string {
  const v = row[key];
  return typeof v === 'string' ? v : '';
}

/** A chart id from a family name: letters, digits and '-' only. */
export function familyId(family: string): string {
  return family
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

/** The size part of a case name ('matmul 256' in family 'matmul' -> '256'). */
export function sizeText(caseName: string, family: string): string {
  return caseName.startsWith(`${family} `) ? caseName.slice(family.length + 1) : caseName;
}

function pointsOf(rows: readonly Row[], key: string): PlotPoint[] {
  const points: PlotPoint[] = [];
  for (const row of rows) {
    const x = numberField(row, 'inputElements');
    const y = numberField(row, key);
    if (x !== undefined && y !== undefined) points.push({ x, y });
  }
  return points;
}

/** Latency vs size of one family: a line per backend and auto (dashed), markers where two backends cross. */
function familyChart(family: string, rows: readonly Row[], backends: readonly string[]): LineChart {
  const markers: PlotMarker[] = [];
  for (let i = 0; i < backends.length; i++) {
    for (let j = i + 1; j < backends.length; j++) {
      const [a, b] = [backends[i] ?? '', backends[j] ?? ''];
      const x = crossoverX(pointsOf(rows, `${a}Ms`), pointsOf(rows, `${b}Ms`));
      if (x !== undefined) markers.push({ label: `${a} = ${b} at ~${Math.round(x).toLocaleString('en')} elements`, x });
    }
  }
  const crossed = markers.length > 0 ? 'crossover marked' : 'no crossover in this range';
  return {
    id: `latency-${familyId(family)}`,
    title: `${family}: median call time per backend and under auto (${crossed})`,
    xLabel: 'input elements (ticks: case size)',
    yLabel: 'ms per call (incl. read-back)',
    xLog: true,
    yLog: true,
    series: [
      ...backends.map((b) => ({ label: `${b} only`, points: pointsOf(rows, `${b}Ms`) })),
      { label: 'auto', points: pointsOf(rows, 'autoMs'), dashed: true },
    ],
    markers,
    xTicks: rows.flatMap((r) => {
      const x = numberField(r, 'inputElements');
      return x === undefined ? [] : [{ x, label: sizeText(textField(r, 'case'), family) }];
    }),
  };
}

/** auto / best single backend per case, as bars, with the target and parity lines. */
function ratioChart(rows: readonly Row[]): BarChart {
  return {
    kind: 'bar',
    id: 'auto-vs-best',
    title: `auto vs the best single backend per case (speed ratio: ABBA groups of 10 ms blocks, and of single calls; target >= ${AUTO_TARGET})`,
    yLabel: 'best single backend time / auto time',
    groups: rows.map((r) => textField(r, 'case')),
    series: [
      { label: 'auto / best, blocks', values: rows.map((r) => numberField(r, 'autoVsBest') ?? null) },
      { label: 'auto / best, single calls', values: rows.map((r) => numberField(r, 'autoVsBestCalls') ?? null) },
    ],
    ceilings: [
      { label: `target ${AUTO_TARGET}`, y: AUTO_TARGET },
      { label: 'parity 1.0', y: 1 },
    ],
    flagBelow: AUTO_TARGET,
  };
}

/** Every chart of the dispatch suite. Rows need case, family, inputElements, <backend>Ms, autoMs and autoVsBest. */
export function dispatchPlots(rows: readonly Row[], backends: readonly string[]): Chart[] {
  const families = new Map<string, Row[]>();
  for (const row of rows) {
    const family = textField(row, 'family');
    if (family === '') continue;
    families.set(family, [...(families.get(family) ?? []), row]);
  }
  return [ratioChart(rows), ...[...families].map(([family, list]) => familyChart(family, list, backends))];
}
