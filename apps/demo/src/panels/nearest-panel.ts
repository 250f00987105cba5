// The nearest-words panel: reads the form, asks the engine worker for both searches, shows the two rankings side by
// side. While a search runs the button says so, and after a moment a line says what is slow (a GPU's first call);
// a failed search shows its sentence and marks the previous answer stale.
import { byId, el, formatDuration, formatRatio } from '../dom.ts';
import { showFailure, showResultsFresh } from '../errors-shown.ts';
import type { NearestAnswer } from '../search/nearest.ts';
import type { EngineClient } from '../worker/client.ts';
import type { StrategyName } from '../worker/protocol.ts';

/** After this long a search in flight explains itself, ms. */
const EXPLAIN_AFTER_MS = 400;

function strategyOf(value: string): StrategyName {
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
  hits?.replaceChildren(
    ...answer.hits.map((h) =>
      el('li', { 'data-word': h.word }, [h.word, el('span', { class: 'score', text: h.score.toFixed(3) })]),
    ),
  );
  ranOn?.replaceChildren(...answer.ranOn.map((line) => el('li', { text: line })));
}

/** Wires the form; resolves once the first (default) query has been answered. */
export async function setUpNearestPanel(client: EngineClient, words: number): Promise<void> {
  const form = byId('nearest-form', HTMLFormElement);
  const button = byId('nearest-run', HTMLButtonElement);
  const error = byId('nearest-error', HTMLParagraphElement);
  const working = byId('nearest-status', HTMLParagraphElement);
  const overlap = byId('nearest-overlap', HTMLParagraphElement);
  const results = [byId('nearest-brute', HTMLDivElement), byId('nearest-hnsw', HTMLDivElement), overlap];
  byId('word-count', HTMLSpanElement).textContent = words.toLocaleString('en');

  async function run(): Promise<void> {
    button.disabled = true;
    button.textContent = 'Searching…';
    const strategy = strategyOf(byId('nearest-strategy', HTMLSelectElement).value);
    const explain = setTimeout(() => {
      working.textContent = `Still searching (${strategy}). A backend's first call of an op compiles its kernel and copies the word vectors to it: on a software GPU that takes seconds. The page stays responsive meanwhile.`;
      working.hidden = false;
    }, EXPLAIN_AFTER_MS);
    try {
      const k = clampInt(byId('nearest-k', HTMLInputElement).value, 1, 50, 10);
      const ef = clampInt(byId('nearest-ef', HTMLInputElement).value, 1, 1000, 64);
      const result = await client.call('search', {
        query: byId('nearest-query', HTMLInputElement).value,
        k,
        ef,
        strategy,
      });
      showAnswer(byId('nearest-brute', HTMLDivElement), result.brute, 'exact');
      showAnswer(byId('nearest-hnsw', HTMLDivElement), result.hnsw, 'approximate');
      overlap.textContent = `HNSW found ${Math.round(result.overlap * 100)}% of brute force's top ${k}; HNSW took ${formatDuration(result.hnsw.ms)}, brute force ${formatDuration(result.brute.ms)} (${formatRatio(result.brute.ms / Math.max(result.hnsw.ms, 1e-3))} as long).`;
      overlap.dataset['overlap'] = result.overlap.toFixed(2);
      showResultsFresh(error, results);
    } catch (e) {
      showFailure(error, e, results);
    } finally {
      clearTimeout(explain);
      working.hidden = true;
      button.textContent = 'Search';
      button.disabled = false;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  await run();
}
