// The latency-vs-size panel: runs the sweep in the engine worker, shows "k of N" as points land, draws each point as
// it comes, can be cancelled, and lists points lost to a device loss and sizes skipped (with why) under the chart.
import { byId, el, formatDuration } from '../dom.ts';
import { shownOf } from '../errors-shown.ts';
import type { EngineClient } from '../worker/client.ts';
import { findCrossovers } from './sweep-crossovers.ts';
import type { SweepOp, SweepPoint } from './sweep-measure.ts';

const X_LABEL: Readonly<Record<SweepOp, string>> = {
  matmul: 'n (matmul n × n × n)',
  cosineSimilarity: 'n targets (32 queries, 100-d)',
};

/** One line per series for its lost and skipped points. */
function notesOf(points: readonly SweepPoint[]): string[] {
  const notes: string[] = [];
  for (const series of new Set(points.map((p) => p.series))) {
    const lost = points.filter((p) => p.series === series && p.status === 'lost');
    const skipped = points.filter((p) => p.series === series && p.status === 'skipped');
    if (lost.length > 0)
      notes.push(`${series}: n = ${lost.map((p) => p.size).join(', ')} lost (${lost[0]?.note ?? ''})`);
    if (skipped.length > 0)
      notes.push(`${series}: n = ${skipped.map((p) => p.size).join(', ')} ${skipped[0]?.note ?? 'skipped'}`);
  }
  return notes;
}

/** The chart module, loaded with the first sweep (uPlot's chart code is not needed before). */
async function chartModule(): Promise<typeof import('./sweep-chart.ts')> {
  return import('./sweep-chart.ts');
}

/** Wires the sweep and cancel buttons. */
export function setUpSweepPanel(client: EngineClient): void {
  const button = byId('sweep-run', HTMLButtonElement);
  const cancel = byId('sweep-cancel', HTMLButtonElement);
  const progress = byId('sweep-progress', HTMLSpanElement);
  const chart = byId('sweep-chart', HTMLDivElement);
  const crossoverList = byId('sweep-crossover', HTMLUListElement);
  const notes = byId('sweep-notes', HTMLUListElement);
  let points: SweepPoint[] = [];
  let op: SweepOp = 'matmul';
  let running = false;
  // Each point is drawn in the next frame, and only then does the worker measure the next one: the drawing (a chart
  // update and its commit, ~20 ms) then has the CPU to itself. A hidden page draws no frames: it lets the sweep go on
  // at once, and after a second at the latest.
  const drawThenGoOn = (): void => {
    let released = false;
    const goOn = (): void => {
      if (released) return;
      released = true;
      clearTimeout(latest);
      void client.call('sweepDrawn', {});
    };
    const latest = setTimeout(goOn, 1000);
    if (document.hidden) {
      goOn();
      return;
    }
    void chartModule().then(({ drawSweepChart }) =>
      requestAnimationFrame(() => {
        if (running) {
          drawSweepChart(chart, points, [], X_LABEL[op]);
          notes.replaceChildren(...notesOf(points).map((text) => el('li', { text })));
        }
        setTimeout(goOn, 0); // after this frame's rendering
      }),
    );
  };
  client.on((event) => {
    if (event.event !== 'sweep-point') return;
    points.push(event.point);
    const p = event.point;
    progress.textContent = `${event.done} of ${event.total}: ${p.series} at n = ${p.size}: ${p.status === 'ok' ? formatDuration(p.medianMs) : p.status}`;
    drawThenGoOn();
  });
  cancel.addEventListener('click', () => {
    cancel.disabled = true;
    progress.textContent = `${progress.textContent ?? ''} — cancelling after the call in flight…`;
    void client.call('cancelSweep', {});
  });
  button.disabled = false;
  button.addEventListener('click', () => {
    void (async () => {
      op = byId('sweep-op', HTMLSelectElement).value === 'cosineSimilarity' ? 'cosineSimilarity' : 'matmul';
      button.disabled = true;
      cancel.disabled = false;
      crossoverList.replaceChildren();
      notes.replaceChildren();
      points = [];
      progress.textContent = 'starting…';
      running = true;
      try {
        const result = await client.call('sweep', { op });
        running = false;
        points = [...result.points];
        const series = [...new Set(points.map((p) => p.series))].filter((s) => s !== 'auto');
        const gpus: string[] = series.filter((s) => s === 'webgpu' || s === 'rocm');
        const cpus = series.filter((s) => !gpus.includes(s));
        const crossovers = findCrossovers(points, gpus, cpus);
        const { drawSweepChart } = await chartModule();
        drawSweepChart(
          chart,
          points,
          crossovers.flatMap((c) => (c.size === undefined ? [] : [c.size])),
          X_LABEL[op],
        );
        notes.replaceChildren(...notesOf(points).map((text) => el('li', { text })));
        crossoverList.replaceChildren(
          ...(gpus.length === 0
            ? [el('li', { text: 'No GPU backend here: nothing to cross over to.' })]
            : crossovers.map((c) => el('li', { text: c.text }))),
        );
        const lost = points.filter((p) => p.status === 'lost').length;
        progress.textContent = `${result.cancelled ? 'cancelled' : 'done'}: ${points.length} points${lost > 0 ? `, ${lost} lost` : ''}`;
      } catch (error) {
        progress.textContent = `The sweep stopped: ${shownOf(error).sentence}`;
      } finally {
        running = false;
        button.disabled = false;
        cancel.disabled = true;
      }
    })();
  });
}
