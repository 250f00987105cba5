// Renders a LineChart as a small standalone SVG (no dependency: a chart here is a few lines, ticks and a legend).
// Log axes get ticks at 1-2-5 steps per decade; linear axes at "nice" steps. Series colours cycle a fixed palette.
import type { LineChart, PlotPoint } from './plot.ts';

const WIDTH = 900;
const HEIGHT = 440;
const MARGIN = { left: 72, right: 260, top: 40, bottom: 56 };
const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/** A value range and how to map it to pixels. */
interface Axis {
  readonly min: number;
  readonly max: number;
  readonly log: boolean;
  readonly from: number;
  readonly to: number;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function drawable(value: number, log: boolean): boolean {
  return Number.isFinite(value) && (!log || value > 0);
}

/** Pixel position of `value` on `axis`. */
export function project(axis: Axis, value: number): number {
  const [lo, hi, v] = axis.log ? [Math.log10(axis.min), Math.log10(axis.max), Math.log10(value)] : [axis.min, axis.max, value];
  const t = hi === lo ? 0.5 : (v - lo) / (hi - lo);
  return axis.from + t * (axis.to - axis.from);
}

function niceStep(span: number): number {
  const raw = span / 6;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const steps = [1, 2, 5, 10];
  return (steps.find((s) => s * magnitude >= raw) ?? 10) * magnitude;
}

/** Up to this many distinct x values, the x ticks sit at the data's own x values (sizes measured). */
const DATA_TICKS_MAX = 10;

/** Tick values inside [min, max]: 1-2-5 per decade on log axes (fewer when the range is wide), nice steps otherwise. */
export function ticks(min: number, max: number, log: boolean): number[] {
  const out: number[] = [];
  if (log) {
    const decades = Math.log10(max) - Math.log10(min);
    const mantissas = decades > 4 ? [1] : decades > 2 ? [1, 3] : [1, 2, 5];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const m of mantissas) {
        const v = m * 10 ** e;
        if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
      }
    }
    return out;
  }
  const step = niceStep(max - min);
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function formatTick(v: number): string {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e6 || a < 1e-3) return v.toExponential(0);
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(3)));
}

/** The range an axis must show: every drawable value, padded a little (log: by a factor; linear: from 0 when all are >= 0). */
function range(values: readonly number[], log: boolean): { min: number; max: number } {
  const usable = values.filter((v) => drawable(v, log));
  if (usable.length === 0) return log ? { min: 1, max: 10 } : { min: 0, max: 1 };
  const [lo, hi] = [Math.min(...usable), Math.max(...usable)];
  if (log) return lo === hi ? { min: lo / 2, max: hi * 2 } : { min: lo / 1.15, max: hi * 1.15 };
  const min = lo >= 0 ? 0 : lo - (hi - lo) * 0.05;
  return { min, max: hi === min ? min + 1 : hi + (hi - min) * 0.05 };
}

function polyline(points: readonly PlotPoint[], x: Axis, y: Axis): string {
  return [...points]
    .filter((p) => drawable(p.x, x.log) && drawable(p.y, y.log))
    .sort((p, q) => p.x - q.x)
    .map((p) => `${project(x, p.x).toFixed(1)},${project(y, p.y).toFixed(1)}`)
    .join(' ');
}

/** The chart as an SVG document. */
export function renderSvg(chart: LineChart): string {
  const xLog = chart.xLog ?? false;
  const yLog = chart.yLog ?? false;
  const xs = [...chart.series.flatMap((s) => s.points.map((p) => p.x)), ...(chart.markers ?? []).map((m) => m.x)];
  const ys = [...chart.series.flatMap((s) => s.points.map((p) => p.y)), ...(chart.ceilings ?? []).map((c) => c.y)];
  const xr = range(xs, xLog);
  const yr = range(ys, yLog);
  const x: Axis = { ...xr, log: xLog, from: MARGIN.left, to: WIDTH - MARGIN.right };
  const y: Axis = { ...yr, log: yLog, from: HEIGHT - MARGIN.bottom, to: MARGIN.top };
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`);
  parts.push(`<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`);
  const dataXs = [...new Set(chart.series.flatMap((se) => se.points.map((p) => p.x)).filter((v) => drawable(v, xLog)))].sort((p, q) => p - q);
  for (const v of dataXs.length > 0 && dataXs.length <= DATA_TICKS_MAX ? dataXs : ticks(x.min, x.max, xLog)) {
    const px = project(x, v).toFixed(1);
    parts.push(`<line x1="${px}" y1="${y.to}" x2="${px}" y2="${y.from}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${px}" y="${y.from + 16}" text-anchor="middle" font-size="11">${formatTick(v)}</text>`);
  }
  for (const v of ticks(y.min, y.max, yLog)) {
    const py = project(y, v).toFixed(1);
    parts.push(`<line x1="${x.from}" y1="${py}" x2="${x.to}" y2="${py}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${x.from - 6}" y="${py}" text-anchor="end" dominant-baseline="middle" font-size="11">${formatTick(v)}</text>`);
  }
  parts.push(`<rect x="${x.from}" y="${y.to}" width="${x.to - x.from}" height="${y.from - y.to}" fill="none" stroke="#333"/>`);
  parts.push(`<text x="${(x.from + x.to) / 2}" y="${HEIGHT - 14}" text-anchor="middle" font-size="12">${escapeXml(chart.xLabel)}${xLog ? ' (log)' : ''}</text>`);
  parts.push(`<text transform="translate(18 ${(y.from + y.to) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(chart.yLabel)}${yLog ? ' (log)' : ''}</text>`);
  // Ceiling labels sit above their line, or below it when the previous (higher) label is too close.
  let previousLabelY = -Infinity;
  for (const ceiling of [...(chart.ceilings ?? [])].filter((c) => drawable(c.y, yLog)).sort((p, q) => q.y - p.y)) {
    const py = project(y, ceiling.y);
    const labelY = py - 4 - previousLabelY < 12 ? py + 13 : py - 4;
    previousLabelY = labelY;
    parts.push(`<line class="ceiling" x1="${x.from}" y1="${py.toFixed(1)}" x2="${x.to}" y2="${py.toFixed(1)}" stroke="#555" stroke-width="1.5" stroke-dasharray="8 4"/>`);
    parts.push(`<text x="${x.from + 6}" y="${labelY.toFixed(1)}" font-size="11" fill="#555">${escapeXml(ceiling.label)}</text>`);
  }
  // Marker labels run up the line, one per marker, near the bottom of the chart.
  for (const marker of chart.markers ?? []) {
    if (!drawable(marker.x, xLog)) continue;
    const px = project(x, marker.x).toFixed(1);
    parts.push(`<line class="marker" x1="${px}" y1="${y.to}" x2="${px}" y2="${y.from}" stroke="#000" stroke-width="1" stroke-dasharray="2 3"/>`);
    parts.push(`<text transform="translate(${Number(px) - 4} ${y.from - 6}) rotate(-90)" font-size="11">${escapeXml(marker.label)}</text>`);
  }
  chart.series.forEach((series, i) => {
    const colour = PALETTE[i % PALETTE.length] ?? '#000';
    const dash = series.dashed === true ? ' stroke-dasharray="6 4"' : '';
    const points = polyline(series.points, x, y);
    if (points !== '') parts.push(`<polyline class="series" fill="none" stroke="${colour}" stroke-width="2"${dash} points="${points}"/>`);
    for (const p of points.split(' ').filter((s) => s !== '')) {
      const [cx, cy] = p.split(',');
      parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`);
    }
    const ly = MARGIN.top + 8 + i * 18;
    parts.push(`<line x1="${x.to + 10}" y1="${ly}" x2="${x.to + 30}" y2="${ly}" stroke="${colour}" stroke-width="2"${dash}/>`);
    parts.push(`<text x="${x.to + 34}" y="${ly}" dominant-baseline="middle" font-size="11">${escapeXml(series.label)}</text>`);
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif">\n${parts.join('\n')}\n</svg>\n`;
}
