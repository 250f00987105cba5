// A live uPlot scatter of engine calls: time since the engine started (x) against each attempt's wall time (y,
// log scale), one series per backend; failed attempts are drawn as their own series.
import uPlot from 'uplot';
import type { OpEvent } from '@tandem/core';
import { backendColour } from './backend-colours.ts';

/** Points kept on the chart. */
const MAX_POINTS = 600;
/** Redraws at most this often, ms: a busy workload records hundreds of calls a second, and each redraw repaints. */
const REDRAW_MS = 250;

/** The chart and the points it shows. */
export class LiveChart {
  private readonly host: HTMLElement;
  private readonly xs: number[] = [];
  private readonly backends: string[] = [];
  private readonly points: { x: number; backend: string; ms: number }[] = [];
  private readonly originMs: number;
  private plot: uPlot | undefined;
  private pending = false;
  /** Whether the chart is on screen (it is not redrawn while off it: a sweep below it runs its own chart meanwhile). */
  private onScreen = true;
  /** Points came while it was off screen. */
  private stale = false;

  /** `backends`: every backend that can appear, so the chart's series are made once (a new uPlot costs a canvas). */
  constructor(host: HTMLElement, originMs: number, backends: readonly string[]) {
    this.host = host;
    this.originMs = originMs;
    for (const b of backends) this.backends.push(b, `${b} failed`);
    // Follows the page's width (a phone turned, a window resized).
    new ResizeObserver(() => this.plot?.setSize({ width: this.width(), height: 220 })).observe(host);
    new IntersectionObserver((entries) => {
      this.onScreen = entries.some((e) => e.isIntersecting);
      if (this.onScreen && this.stale) this.schedule();
    }).observe(host);
  }

  private width(): number {
    return Math.max(260, this.host.clientWidth || 640);
  }

  /** Adds one attempt (failures under "<backend> failed"); the chart redraws at most every REDRAW_MS. */
  add(event: OpEvent): void {
    const series = event.ok ? event.backend : `${event.backend} failed`;
    if (!this.backends.includes(series)) {
      this.backends.push(series);
      this.plot?.destroy();
      this.plot = undefined;
    }
    this.points.push({
      x: (event.startMs - this.originMs) / 1000,
      backend: series,
      ms: Math.max(event.durationMs, 1e-3),
    });
    if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
    this.schedule();
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = true;
    // Drawn in a task of its own, not in an animation frame: a frame's task also runs the other charts' frame
    // callbacks (the sweep's), lays out and paints, and their sum went past 50 ms (issue 33).
    setTimeout(() => {
      this.pending = false;
      this.stale = !this.onScreen && this.plot !== undefined;
      if (!this.stale) this.draw();
    }, REDRAW_MS);
  }

  private draw(): void {
    this.xs.length = 0;
    const columns: (number | null)[][] = this.backends.map(() => []);
    const sorted = [...this.points].sort((a, b) => a.x - b.x); // concurrent calls finish out of start order
    for (const p of sorted) {
      this.xs.push(p.x);
      for (let s = 0; s < this.backends.length; s++) columns[s]?.push(this.backends[s] === p.backend ? p.ms : null);
    }
    const data: uPlot.AlignedData = [this.xs, ...columns];
    if (this.plot === undefined) {
      this.host.replaceChildren();
      this.plot = new uPlot(this.options(), data, this.host);
    } else {
      this.plot.setData(data);
    }
  }

  private options(): uPlot.Options {
    return {
      width: this.width(),
      height: 220,
      scales: { x: { time: false }, y: { distr: 3 } },
      axes: [{ label: 'seconds since the engine started' }, { label: 'ms per attempt', size: 60 }],
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: 's' },
        ...this.backends.map((name) => ({
          label: name,
          stroke: name.endsWith('failed') ? '#e03131' : backendColour(name),
          paths: () => null,
          points: {
            show: true,
            size: name.endsWith('failed') ? 9 : 5,
            fill: name.endsWith('failed') ? '#e03131' : backendColour(name),
          },
        })),
      ],
    };
  }
}
