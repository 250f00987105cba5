// The latency-vs-size chart, log-log: one coloured line per backend alone, a black line for `auto`, a dashed
// vertical line at each crossover, and a red × above the plot at each size where a series lost its point. The
// legend lists the series only (no cursor readout, whose "n: --" placeholders said nothing).
import uPlot from 'uplot';
import { backendColour } from './backend-colours.ts';
import type { SweepPoint } from './sweep-measure.ts';

/** The chart drawn in a host, kept so that new points only update its data (making a uPlot costs a canvas). */
interface Drawn {
  /** The plot. */
  readonly plot: uPlot;
  /** Its series and axis label, joined: a different key needs a new plot. */
  readonly key: string;
  /** What the draw hook marks: crossover sizes and lost points (read at each redraw). */
  marks: { crossovers: readonly number[]; lost: readonly SweepPoint[] };
  /** Keeps the plot as wide as its host. */
  readonly resize: ResizeObserver;
}

const drawn = new WeakMap<HTMLElement, Drawn>();

/** Draws (or updates) the chart of `points` in `host`; `crossovers` are sizes to mark. */
export function drawSweepChart(
  host: HTMLElement,
  points: readonly SweepPoint[],
  crossovers: readonly number[],
  xLabel: string,
): void {
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const series = [...new Set(points.map((p) => p.series))];
  const timeOf = (name: string, size: number): number | null => {
    const p = points.find((q) => q.series === name && q.size === size && q.status === 'ok');
    return p === undefined ? null : p.medianMs;
  };
  const data: uPlot.AlignedData = [sizes, ...series.map((name) => sizes.map((size) => timeOf(name, size)))];
  const lost = points.filter((p) => p.status === 'lost');
  const key = `${xLabel}|${series.join(',')}`;
  const existing = drawn.get(host);
  if (existing !== undefined && existing.key === key && host.contains(existing.plot.root)) {
    existing.marks = { crossovers, lost };
    existing.plot.setData(data);
    return;
  }
  existing?.plot.destroy();
  existing?.resize.disconnect();
  const state: Drawn['marks'] = { crossovers, lost };
  const marks = (u: uPlot): void => {
    const { crossovers, lost } = drawn.get(host)?.marks ?? state;
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = '#212529';
    ctx.fillStyle = '#212529';
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 2;
    for (const size of crossovers) {
      const x = u.valToPos(size, 'x', true);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.fillText(`crossover n=${size}`, x + 4, u.bbox.top + 12);
    }
    ctx.setLineDash([]);
    for (const p of lost) {
      const x = u.valToPos(p.size, 'x', true);
      const y = u.bbox.top + 6;
      ctx.strokeStyle = '#e03131';
      ctx.beginPath();
      ctx.moveTo(x - 5, y - 5);
      ctx.lineTo(x + 5, y + 5);
      ctx.moveTo(x + 5, y - 5);
      ctx.lineTo(x - 5, y + 5);
      ctx.stroke();
    }
    ctx.restore();
  };
  host.replaceChildren();
  const plot = new uPlot(
    {
      width: Math.max(260, host.clientWidth || 640),
      height: 260,
      scales: { x: { time: false, distr: 3, log: 2 }, y: { distr: 3 } },
      axes: [{ label: xLabel }, { label: 'median ms per call', size: 60 }],
      legend: { live: false },
      series: [
        { label: 'n' },
        ...series.map((name) => ({
          label: name === 'auto' ? 'auto (the scheduler)' : `${name} alone`,
          stroke: name === 'auto' ? '#212529' : backendColour(name),
          width: name === 'auto' ? 2.5 : 2,
          spanGaps: true,
          points: { show: true, size: name === 'auto' ? 8 : 6 },
        })),
      ],
      hooks: { draw: [marks] },
    },
    data,
    host,
  );
  const resize = new ResizeObserver(() => {
    const width = Math.max(260, host.clientWidth || 640);
    if (Math.abs(width - plot.width) > 1) plot.setSize({ width, height: 260 });
  });
  resize.observe(host);
  drawn.set(host, { plot, key, marks: state, resize });
}
