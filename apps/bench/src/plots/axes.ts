// What the line and bar renderers share: value -> pixel mapping, tick placement and text, ranges, XML escaping.

/** Series colours, cycled. */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/** A value range and how to map it to pixels. */
export interface Axis {
  /** Smallest value shown. */
  readonly min: number;
  /** Largest value shown. */
  readonly max: number;
  /** Log scale. */
  readonly log: boolean;
  /** Pixel of `min`. */
  readonly from: number;
  /** Pixel of `max`. */
  readonly to: number;
}

/** Text safe inside SVG elements and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Whether a value can be drawn on an axis (finite; > 0 on a log axis). */
export function drawable(value: number, log: boolean): boolean {
  return Number.isFinite(value) && (!log || value > 0);
}

/** Pixel position of `value` on `axis`. */
export function project(axis: Axis, value: number): number {
  const [lo, hi, v] = axis.log
    ? [Math.log10(axis.min), Math.log10(axis.max), Math.log10(value)]
    : [axis.min, axis.max, value];
  const t = hi === lo ? 0.5 : (v - lo) / (hi - lo);
  return axis.from + t * (axis.to - axis.from);
}

function niceStep(span: number): number {
  const raw = span / 6;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const steps = [1, 2, 5, 10];
  return (steps.find((s) => s * magnitude >= raw) ?? 10) * magnitude;
}

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

/** A tick's or a value's text: integers as is, 3 significant digits otherwise, exponents when very large or small. */
export function formatTick(v: number): string {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e6 || a < 1e-3) return v.toExponential(0);
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(3)));
}

/** The range an axis must show: every drawable value, padded a little (log: by a factor; linear: from 0 when all are >= 0). */
export function range(values: readonly number[], log: boolean): { min: number; max: number } {
  const usable = values.filter((v) => drawable(v, log));
  if (usable.length === 0) return log ? { min: 1, max: 10 } : { min: 0, max: 1 };
  const [lo, hi] = [Math.min(...usable), Math.max(...usable)];
  if (log) return lo === hi ? { min: lo / 2, max: hi * 2 } : { min: lo / 1.15, max: hi * 1.15 };
  const min = lo >= 0 ? 0 : lo - (hi - lo) * 0.05;
  return { min, max: hi === min ? min + 1 : hi + (hi - min) * 0.05 };
}

/** Horizontal dashed lines with their labels (above the line; below it near the top or when the previous label is too close). */
export function ceilingLines(ceilings: readonly { label: string; y: number }[], x: Axis, y: Axis): string[] {
  const parts: string[] = [];
  let previousLabelY = -Infinity;
  for (const ceiling of [...ceilings]
    .filter((c) => drawable(c.y, y.log) && c.y >= y.min && c.y <= y.max)
    .sort((p, q) => q.y - p.y)) {
    const py = project(y, ceiling.y);
    const labelY = py - 4 - previousLabelY < 12 || py - 15 < y.to ? py + 13 : py - 4;
    previousLabelY = labelY;
    parts.push(
      `<line class="ceiling" x1="${x.from}" y1="${py.toFixed(1)}" x2="${x.to}" y2="${py.toFixed(1)}" stroke="#555" stroke-width="1.5" stroke-dasharray="8 4"/>`,
    );
    parts.push(
      `<text x="${x.from + 6}" y="${labelY.toFixed(1)}" font-size="11" fill="#555">${escapeXml(ceiling.label)}</text>`,
    );
  }
  return parts;
}

/** Grid lines and labels of the y axis. */
export function yGrid(x: Axis, y: Axis): string[] {
  const parts: string[] = [];
  for (const v of ticks(y.min, y.max, y.log)) {
    const py = project(y, v).toFixed(1);
    parts.push(`<line x1="${x.from}" y1="${py}" x2="${x.to}" y2="${py}" stroke="#e4e4e4"/>`);
    parts.push(
      `<text x="${x.from - 6}" y="${py}" text-anchor="end" dominant-baseline="middle" font-size="11">${formatTick(v)}</text>`,
    );
  }
  return parts;
}

/** A legend entry at row `i`, right of the plot area: a line (line charts; dashed or not) or a box (bars) and the label. */
export function legendEntry(
  i: number,
  left: number,
  top: number,
  colour: string,
  label: string,
  swatch: 'line' | 'dashed' | 'box',
): string[] {
  const ly = top + 8 + i * 18;
  const mark =
    swatch === 'box'
      ? `<rect x="${left + 12}" y="${ly - 6}" width="16" height="12" fill="${colour}"/>`
      : `<line x1="${left + 10}" y1="${ly}" x2="${left + 30}" y2="${ly}" stroke="${colour}" stroke-width="2"${swatch === 'dashed' ? ' stroke-dasharray="6 4"' : ''}/>`;
  return [
    mark,
    `<text x="${left + 34}" y="${ly}" dominant-baseline="middle" font-size="11">${escapeXml(label)}</text>`,
  ];
}

/** The SVG document around `parts`. */
export function svgDocument(width: number, height: number, parts: readonly string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">\n${parts.join('\n')}\n</svg>\n`;
}
