// Renders a chart as a small standalone SVG (no dependency: a chart here is a few lines, ticks and a legend).
// Log axes get ticks at 1-2-5 steps per decade; linear axes at "nice" steps. Series colours cycle a fixed palette.
// Bar charts are drawn by bar-svg.ts.
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
  ticks,
  yGrid,
  type Axis,
} from './axes.ts';
import { renderBarSvg } from './bar-svg.ts';
import type { Chart, LineChart, PlotPoint } from './plot.ts';

export { project, ticks } from './axes.ts';

const WIDTH = 900;
const HEIGHT = 440;
const MARGIN = { left: 72, right: 260, top: 40, bottom: 56 };

/** Up to this many distinct x values, the x ticks sit at the data's own x values (sizes measured). */
const DATA_TICKS_MAX = 10;

function polyline(points: readonly PlotPoint[], x: Axis, y: Axis): string {
  return [...points]
    .filter((p) => drawable(p.x, x.log) && drawable(p.y, y.log))
    .sort((p, q) => p.x - q.x)
    .map((p) => `${project(x, p.x).toFixed(1)},${project(y, p.y).toFixed(1)}`)
    .join(' ');
}

/** The x ticks: the chart's own labelled ones, else the data's x values when few, else computed ones. */
function xTicks(chart: LineChart, x: Axis): Array<{ x: number; label: string }> {
  if (chart.xTicks !== undefined) return chart.xTicks.filter((t) => drawable(t.x, x.log));
  const dataXs = [
    ...new Set(chart.series.flatMap((se) => se.points.map((p) => p.x)).filter((v) => drawable(v, x.log))),
  ].sort((p, q) => p - q);
  const values = dataXs.length > 0 && dataXs.length <= DATA_TICKS_MAX ? dataXs : ticks(x.min, x.max, x.log);
  return values.map((v) => ({ x: v, label: formatTick(v) }));
}

/** The chart as an SVG document (a bar chart goes to renderBarSvg). */
export function renderSvg(chart: Chart): string {
  return chart.kind === 'bar' ? renderBarSvg(chart) : renderLineSvg(chart);
}

/** A line chart as an SVG document. */
export function renderLineSvg(chart: LineChart): string {
  const xLog = chart.xLog ?? false;
  const yLog = chart.yLog ?? false;
  const xs = [...chart.series.flatMap((s) => s.points.map((p) => p.x)), ...(chart.markers ?? []).map((m) => m.x)];
  const ys = [...chart.series.flatMap((s) => s.points.map((p) => p.y)), ...(chart.ceilings ?? []).map((c) => c.y)];
  const xr = chart.xRange === undefined ? range(xs, xLog) : { min: chart.xRange[0], max: chart.xRange[1] };
  const yr = chart.yRange === undefined ? range(ys, yLog) : { min: chart.yRange[0], max: chart.yRange[1] };
  const x: Axis = { ...xr, log: xLog, from: MARGIN.left, to: WIDTH - MARGIN.right };
  const y: Axis = { ...yr, log: yLog, from: HEIGHT - MARGIN.bottom, to: MARGIN.top };
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`);
  parts.push(
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
  );
  for (const tick of xTicks(chart, x)) {
    if (tick.x < x.min || tick.x > x.max) continue;
    const px = project(x, tick.x).toFixed(1);
    parts.push(`<line x1="${px}" y1="${y.to}" x2="${px}" y2="${y.from}" stroke="#e4e4e4"/>`);
    parts.push(
      `<text x="${px}" y="${y.from + 16}" text-anchor="middle" font-size="11">${escapeXml(tick.label)}</text>`,
    );
  }
  parts.push(...yGrid(x, y));
  parts.push(
    `<rect x="${x.from}" y="${y.to}" width="${x.to - x.from}" height="${y.from - y.to}" fill="none" stroke="#333"/>`,
  );
  parts.push(
    `<text x="${(x.from + x.to) / 2}" y="${HEIGHT - 14}" text-anchor="middle" font-size="12">${escapeXml(chart.xLabel)}${xLog ? ' (log)' : ''}</text>`,
  );
  parts.push(
    `<text transform="translate(18 ${(y.from + y.to) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escapeXml(chart.yLabel)}${yLog ? ' (log)' : ''}</text>`,
  );
  parts.push(...ceilingLines(chart.ceilings ?? [], x, y));
  // Marker labels run up the line, one per marker, near the bottom of the chart.
  for (const marker of chart.markers ?? []) {
    if (!drawable(marker.x, xLog)) continue;
    const px = project(x, marker.x).toFixed(1);
    parts.push(
      `<line class="marker" x1="${px}" y1="${y.to}" x2="${px}" y2="${y.from}" stroke="#000" stroke-width="1" stroke-dasharray="2 3"/>`,
    );
    const textX = Number(px) - 4 < x.from + 12 ? Number(px) + 12 : Number(px) - 4; // right of a line on the left edge
    parts.push(
      `<text transform="translate(${textX} ${y.from - 6}) rotate(-90)" font-size="11">${escapeXml(marker.label)}</text>`,
    );
  }
  parts.push(
    `<clipPath id="plot-area"><rect x="${x.from}" y="${y.to}" width="${x.to - x.from}" height="${y.from - y.to}"/></clipPath>`,
  );
  chart.series.forEach((series, i) => {
    const colour = PALETTE[i % PALETTE.length] ?? '#000';
    const dash = series.dashed === true ? ' stroke-dasharray="6 4"' : '';
    const points = polyline(series.points, x, y);
    if (points !== '')
      parts.push(
        `<polyline class="series" fill="none" stroke="${colour}" stroke-width="2" clip-path="url(#plot-area)"${dash} points="${points}"/>`,
      );
    if (series.dots !== false) {
      for (const p of points.split(' ').filter((s) => s !== '')) {
        const [cx, cy] = p.split(',');
        parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}" clip-path="url(#plot-area)"/>`);
      }
    }
    parts.push(...legendEntry(i, x.to, MARGIN.top, colour, series.label, series.dashed === true ? 'dashed' : 'line'));
  });
  return svgDocument(WIDTH, HEIGHT, parts);
}
