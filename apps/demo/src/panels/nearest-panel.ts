// The nearest-words panel: reads the form, runs both searches, shows the two rankings side by side.
import type { Engine, Strategy } from '@tandem/core';
import type { VectorOps } from '@tandem/memory';
import type { DemoWords } from '../data/load-data.ts';
import { byId, el, formatDuration, messageOf } from '../dom.ts';
import { compareNearest, type NearestAnswer } from '../search/nearest.ts';
import { parseQuery } from '../search/query.ts';

function strategyOf(value: string): Strategy {
  return value === 'gpu-preferred' || value === 'cpu-preferred' ? value : 'auto';
}

function clampInt(value: string, min: number, max: number, fallback: number): number {
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

function showAnswer(column: HTMLElement, answer: NearestAnswer, method: string): void {
  const timing = column.querySelector('.timing');
  const hits = column.querySelector('.hits');
  const ranOn = column.querySelector('.ran-on');
  if (timing !== null) timing.textContent = `${method}: ${formatDuration(answer.ms)}`;
  hits?.replaceChildren(...answer.hits.map((h) => el('li', { 'data-word': h.word }, [h.word, el('span', { class: 'score', text: h.score.toFixed(3) })])));
  ranOn?.replaceChildren(...answer.ranOn.map((line) => el('li', { text: line })));
}

/** Wires the form; resolves once the first (default) query has been answered. */
export async function setUpNearestPanel(engine: Engine, ops: VectorOps, data: DemoWords): Promise<void> {
  const form = byId('nearest-form', HTMLFormElement);
  const button = byId('nearest-run', HTMLButtonElement);
  const error = byId('nearest-error', HTMLParagraphElement);
  const overlap = byId('nearest-overlap', HTMLParagraphElement);
  byId('word-count', HTMLSpanElement).textContent = data.words.length.toLocaleString('en');

  async function run(): Promise<void> {
    button.disabled = true;
    error.hidden = true;
    try {
      const terms = parseQuery(byId('nearest-query', HTMLInputElement).value);
      const k = clampInt(byId('nearest-k', HTMLInputElement).value, 1, 50, 10);
      const ef = clampInt(byId('nearest-ef', HTMLInputElement).value, 1, 1000, 64);
      const result = await compareNearest(engine, ops, data, terms, k, strategyOf(byId('nearest-strategy', HTMLSelectElement).value), ef);
      showAnswer(byId('nearest-brute', HTMLDivElement), result.brute, 'exact');
      showAnswer(byId('nearest-hnsw', HTMLDivElement), result.hnsw, 'approximate');
      overlap.textContent = `HNSW found ${Math.round(result.overlap * 100)}% of brute force's top ${k}; HNSW took ${formatDuration(result.hnsw.ms)}, brute force ${formatDuration(result.brute.ms)} (${(result.brute.ms / Math.max(result.hnsw.ms, 1e-3)).toFixed(1)}×).`;
      overlap.dataset['overlap'] = result.overlap.toFixed(2);
    } catch (e) {
      error.textContent = messageOf(e);
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  await run();
}
