// Showing a failure on the page: its sentence in the error box (its name in data-error, never in the text), and the
// results it leaves behind marked stale.
import { showError } from './sentences.ts';
import { WorkerRequestError } from './worker/client.ts';

/** The sentence and name of anything a request threw. */
export function shownOf(error: unknown): { sentence: string; name: string } {
  return error instanceof WorkerRequestError ? error.shown : showError(error);
}

/** Shows `error` in `box` and marks `results` stale (cleared by showResultsFresh). */
export function showFailure(box: HTMLElement, error: unknown, results: readonly HTMLElement[]): void {
  const shown = shownOf(error);
  box.textContent = shown.sentence;
  box.dataset['error'] = shown.name;
  box.hidden = false;
  for (const r of results) if (r.childElementCount > 0 || (r.textContent ?? '') !== '') r.dataset['stale'] = 'true';
}

/** Hides the error box and marks `results` current. */
export function showResultsFresh(box: HTMLElement, results: readonly HTMLElement[]): void {
  box.hidden = true;
  box.textContent = '';
  for (const r of results) delete r.dataset['stale'];
}
