// The latency-vs-size panel: runs the sweep on demand and draws it with the crossover.
import type { Engine } from '@tandem/core';
import { byId, el, formatDuration, messageOf } from '../dom.ts';
import { drawSweepChart } from './sweep-chart.ts';
import { findCrossovers, runSweep, type SweepOp, type SweepPoint } from './sweep-measure.ts';

const X_LABEL: Readonly<Record<SweepOp, string>> = { matmul: 'n (matmul n × n × n)', cosineSimilarity: 'n targets (32 queries, 100-d)' };

/** Wires the sweep button. */
export function setUpSweepPanel(engine: Engine): void {
  const button = byId('sweep-run', HTMLButtonElement);
  const progress = byId('sweep-progress', HTMLSpanElement);
  const chart = byId('sweep-chart', HTMLDivElement);
  const crossoverList = byId('sweep-crossover', HTMLUListElement);
  button.disabled = false;
  button.addEventListener('click', () => {
    void (async () => {
      const op: SweepOp = byId('sweep-op', HTMLSelectElement).value === 'cosineSimilarity' ? 'cosineSimilarity' : 'matmul';
      const usable = engine.backends().filter((b) => b.available && b.health.state === 'healthy');
      button.disabled = true;
      crossoverList.replaceChildren();
      const points: SweepPoint[] = [];
      try {
        await runSweep(
          engine,
          op,
          usable.map((b) => b.name),
          (point) => {
            points.push(point);
            progress.textContent = `${point.series} at n = ${point.size}: ${formatDuration(point.medianMs)}`;
            drawSweepChart(chart, points, [], X_LABEL[op]);
          },
        );
        const gpus = usable.filter((b) => b.kind === 'gpu').map((b) => b.name);
        const cpus = usable.filter((b) => b.kind === 'cpu').map((b) => b.name);
        const crossovers = findCrossovers(points, gpus, cpus);
        drawSweepChart(chart, points, crossovers.flatMap((c) => (c.size === undefined ? [] : [c.size])), X_LABEL[op]);
        crossoverList.replaceChildren(...(gpus.length === 0 ? [el('li', { text: 'No GPU backend here: nothing to cross over to.' })] : crossovers.map((c) => el('li', { text: c.text }))));
        progress.textContent = `done: ${points.length} points`;
      } catch (error) {
        progress.textContent = `sweep failed: ${messageOf(error)}`;
      } finally {
        button.disabled = false;
      }
    })();
  });
}
