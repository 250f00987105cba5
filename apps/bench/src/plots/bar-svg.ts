// Renders a grouped bar chart as a standalone SVG: per group one bar per series, its value written above it (when
// there is room), 'not run' where a value is missing. Many or long group names are written vertically and the
// chart grows to fit them.
import {
  ceilingLines,
  drawable,
  escapeXml,
  formatTick,
  legendEntry,
  PALETTE,
  project,
  range,
  svgDocument,
  yGrid,
  type Axis,
} from './axes.ts';
import type { BarChart } from './plot.ts';

const MIN_WIDTH = 900;
const PLOT_HEIGHT = 340;
const MARGIN = { left: 72, right: 260, top: 40 };
/** Approximate width of one character of 11px sans-serif text. */
const CHAR_PX = 6.2;
/** Narrowest bar that still gets its value written above it. */
const LABELLED_BAR_PX = 22;
/** Colour of a bar below the chart's flagBelow value. */
const FLAG_COLOUR = '#e8590c';

/** A bar's value, or undefined when it cannot be drawn on this axis. */
function barValue(values: readonly (number | null)[], g: number, log: boolean): number | undefined {
  const v = values[g];
  return v === null || v === undefined || !drawable(v, log) ? undefined : v;
}

/** The chart as an SVG document. */
export function renderBarSvg(chart: BarChart): string {
  const yLog = chart.yLog ?? false;
  const groups = chart.groups.length;
  const perGroup = Math.max(1, chart.series.length);
  const slotPx = Math.max(perGroup * 16 + 12, 24);
  const width = Math.max(MIN_WIDTH, MARGIN.left + MARGIN.right + groups * slotPx);
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const slot = plotWidth / Math.max(1, groups);
  const longest = Math.max(0, ...chart.groups.map((g) => g.length));
  const vertical = longest * CHAR_PX > slot - 4;
  const bottom = vertical ? 30 + longest * CHAR_PX : 48;
  const height = MARGIN.top + PLOT_HEIGHT + bottom;
  const values = chart.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const fitted = range([...values, ...(chart.ceilings ?? []).map((c) => c.y)], yLog);
  // Bars stand on the axis: on a log axis start it a decade boundary below the smallest bar, so that bar shows.
  // Headroom above the tallest bar for its value.
  const yr = yLog
    ? { min: Math.min(fitted.min, 10 ** Math.floor(Math.log10((fitted.min * 1.15) / 1.5))), max: fitted.max * 1.4 }
    : { min: fitted.min, max: fitted.max * 1.06 };
  const x: Axis = { min: 0, max: 1, log: false, from: MARGIN.left, to: MARGIN.left + plotWidth };
  const y: Axis = { ...yr, log: yLog, from: MARGIN.top + PLOT_HEIGHT, to: MARGIN.top };
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`);
  parts.push(
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  );
  parts.push(...yGrid(x, y));
  const barWidth = (slot * 0.8) / perGroup;
  chart.groups.forEach((group, g) => {
    const left = x.from + g * slot + slot * 0.1;
    const centre = x.from + (g + 0.5) * slot;
    chart.series.forEach((series, s) => {
      const bx = left + s * barWidth;
      const v = barValue(series.values, g, yLog);
      if (v === undefined) {
        parts.push(
          `<text class="missing" transform="translate(${(bx + barWidth / 2 + 3).toFixed(1)} ${y.from - 4}) rotate(-90)" font-size="10" fill="#888">not run</text>`,
        );
        return;
      }
      const top = Math.max(y.to, Math.min(y.from, project(y, v)));
      const flagged = chart.flagBelow !== undefined && v < chart.flagBelow;
      const colour = flagged ? FLAG_COLOUR : (PALETTE[s % PALETTE.length] ?? '#000');
      parts.push(
        `<rect class="bar" x="${bx.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, barWidth - 1).toFixed(1)}" height="${(y.from - top).toFixed(1)}" fill="${colour}"/>`,
      );
      if (barWidth >= LABELLED_BAR_PX)
        parts.push(
          `<text x="${(bx + barWidth / 2).toFixed(1)}" y="${(top - 3).toFixed(1)}" text-anchor="middle" font-size="9">${formatTick(v)}</text>`,
        );
    });
    parts.push(
      vertical
        ? `<text transform="translate(${(centre + 4).toFixed(1)} ${y.from + 8}) rotate(-90)" text-anchor="end" font-size="11">${escapeXml(group)}</text>`
        : `<text x="${centre.toFixed(1)}" y="${y.from + 16}" text-anchor="middle" font-size="11">${escapeXml(group)}</text>`,
    );
  });
  parts.push(
    `<rect x="${x.from}" y="${y.to}" width="${x.to - x.from}" height="${y.from - y.to}" fill="none" stroke="#333"/>`,
  );
  parts.push(
    `<text transform="translate(18 ${(y.from + y.to) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(chart.yLabel)}${yLog ? ' (log)' : ''}</text>`,
  );
  parts.push(...ceilingLines(chart.ceilings ?? [], x, y));
  chart.series.forEach((series, s) => {
    parts.push(...legendEntry(s, x.to, MARGIN.top, PALETTE[s % PALETTE.length] ?? '#000', series.label, 'box'));
  });
  if (chart.flagBelow !== undefined)
    parts.push(
      ...legendEntry(chart.series.length, x.to, MARGIN.top, FLAG_COLOUR, `below ${formatTick(chart.flagBelow)}`, 'box'),
    );
  return svgDocument(width, height, parts);
}
