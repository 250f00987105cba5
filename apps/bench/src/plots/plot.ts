// What a suite says about a chart: line series of x/y points on linear or log axes, horizontal ceilings (roofline
// peaks) and vertical markers (crossovers); or grouped bars (one value per group and series). Plain data, so it
// also goes into the suite's JSON.

/** One point of a series. */
export interface PlotPoint {
  /** Position on the x axis. */
  readonly x: number;
  /** Position on the y axis. */
  readonly y: number;
}

/** One line of a chart. */
export interface PlotSeries {
  /** Legend text. */
  readonly label: string;
  /** Points, in any order (drawn sorted by x); points that cannot be drawn (NaN, <= 0 on a log axis) are skipped. */
  readonly points: readonly PlotPoint[];
  /** Drawn dashed (e.g. a second thread count of the same engine). */
  readonly dashed?: boolean;
  /** Draw a dot at each point (default true; false for dense series). */
  readonly dots?: boolean;
}

/** A horizontal line across the chart: a measured peak, a target. */
export interface PlotCeiling {
  /** Text at the line's right end. */
  readonly label: string;
  /** Height on the y axis. */
  readonly y: number;
}

/** A vertical marker: where two series cross. */
export interface PlotMarker {
  /** Text next to the marker. */
  readonly label: string;
  /** Position on the x axis. */
  readonly x: number;
}

/** A labelled tick on the x axis (e.g. a case's own size text at its position). */
export interface PlotTick {
  /** Position on the x axis. */
  readonly x: number;
  /** Text under the tick. */
  readonly label: string;
}

/** A line chart. */
export interface LineChart {
  /** Chart type (absent means a line chart, as older JSON has it). */
  readonly kind?: 'line';
  /** Short id: the SVG file is <suite>-<id>.svg. Letters, digits and '-' only. */
  readonly id: string;
  /** Title above the chart. */
  readonly title: string;
  /** x axis label (with unit). */
  readonly xLabel: string;
  /** y axis label (with unit). */
  readonly yLabel: string;
  /** Log scale on x. */
  readonly xLog?: boolean;
  /** Log scale on y. */
  readonly yLog?: boolean;
  /** The lines. */
  readonly series: readonly PlotSeries[];
  /** Horizontal ceilings (rooflines). */
  readonly ceilings?: readonly PlotCeiling[];
  /** Vertical markers (crossovers). */
  readonly markers?: readonly PlotMarker[];
  /** x ticks with their own labels, instead of computed ones. */
  readonly xTicks?: readonly PlotTick[];
  /** Fixed y range [min, max] instead of one fitted to the data. */
  readonly yRange?: readonly [number, number];
  /** Fixed x range [min, max] instead of one fitted to the data. */
  readonly xRange?: readonly [number, number];
}

/** One series of a bar chart: a value per group, null where not measured. */
export interface BarSeries {
  /** Legend text. */
  readonly label: string;
  /** One value per group, in the chart's group order; null (or NaN) draws a 'not run' note instead of a bar. */
  readonly values: readonly (number | null)[];
}

/** A grouped bar chart: per group (a phase, a backend), one bar per series. */
export interface BarChart {
  /** Chart type. */
  readonly kind: 'bar';
  /** Short id: the SVG file is <suite>-<id>.svg. Letters, digits and '-' only. */
  readonly id: string;
  /** Title above the chart. */
  readonly title: string;
  /** y axis label (with unit). */
  readonly yLabel: string;
  /** Log scale on y. */
  readonly yLog?: boolean;
  /** Group names along the x axis. */
  readonly groups: readonly string[];
  /** The bars: one series per colour. */
  readonly series: readonly BarSeries[];
  /** Horizontal lines across the chart (targets, parity). */
  readonly ceilings?: readonly PlotCeiling[];
  /** Bars below this value are drawn in a warning colour (a target missed). */
  readonly flagBelow?: number;
}

/** Any chart a suite can draw. */
export type Chart = LineChart | BarChart;

/**
 * Where series `a` and `b` first change order (compared at the x values both have), with x interpolated between
 * the two sizes (geometrically when `log`); undefined when they never cross.
 */
export function crossoverX(a: readonly PlotPoint[], b: readonly PlotPoint[], log = true): number | undefined {
  const common = a.filter((p) => b.some((q) => q.x === p.x)).sort((p, q) => p.x - q.x);
  let previous: { x: number; diff: number } | undefined;
  for (const p of common) {
    const other = b.find((q) => q.x === p.x);
    if (other === undefined) continue;
    const diff = log ? Math.log(p.y) - Math.log(other.y) : p.y - other.y;
    if (!Number.isFinite(diff)) continue;
    if (previous !== undefined && Math.sign(diff) !== Math.sign(previous.diff) && diff !== 0) {
      const t = previous.diff / (previous.diff - diff);
      return log
        ? Math.exp(Math.log(previous.x) + t * (Math.log(p.x) - Math.log(previous.x)))
        : previous.x + t * (p.x - previous.x);
    }
    if (diff !== 0) previous = { x: p.x, diff };
  }
  return undefined;
}
