// The latency-vs-size chart: one line per backend (and `auto`), log-log, the crossover marked by a dashed line.
import uPlot from 'uplot';
import { backendColour } from './backend-colours.ts';
import type { SweepPoint } from './sweep-measure.ts';

/** Draws (or redraws) the chart of `points` in `host`; `crossovers` are sizes to mark. */
export function drawSweepChart(host: HTMLElement, points: readonly SweepPoint[], crossovers: readonly number[], xLabel: string): void {
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const series = [...new Set(points.map((p) => p.series))];
  const data: uPlot.AlignedData = [sizes, ...series.map((name) => sizes.map((size) => points.find((p) => p.series === name && p.size === size)?.medianMs ?? null))];
  const markCrossovers = (u: uPlot): void => {
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = '#212529';
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 2;
    for (const size of crossovers) {
      const x = u.valToPos(size, 'x', true);
      ctx.beginPath();
      ctx.moveTo(x, u.bbox.top);
      ctx.lineTo(x, u.bbox.top + u.bbox.height);
      ctx.stroke();
      ctx.fillStyle = '#212529';
      ctx.fillText(`crossover n=${size}`, x + 4, u.bbox.top + 12);
    }
    ctx.restore();
  };
  host.replaceChildren();
  new uPlot(
    {
      width: Math.max(320, host.clientWidth || 640),
      height: 260,
      scales: { x: { time: false, distr: 3, log: 2 }, y: { distr: 3 } },
      axes: [{ label: xLabel }, { label: 'median ms per call', size: 60 }],
      series: [
        { label: 'n' },
        ...series.map((name) => ({
          label: name,
          stroke: name === 'auto' ? '#212529' : backendColour(name),
          width: name === 'auto' ? 1 : 2,
          ...(name === 'auto' ? { dash: [3, 3] } : {}),
          spanGaps: true,
          points: { show: true, size: 6 },
        })),
      ],
      hooks: { draw: [markCrossovers] },
    },
    data,
    host,
  );
}
