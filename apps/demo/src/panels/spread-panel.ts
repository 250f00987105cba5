// The spreading-activation panel: a word -> its synsets (asked of the worker as you type) -> activation spread on
// the engine in the worker, with this panel's own strategy -> the drawn graph. "Show more synsets" draws 60 more of
// the reached ones, up to MAX_NODES; a failed spread shows its sentence and marks the graph stale.
import { byId, el, formatDuration } from '../dom.ts';
import { showFailure, showResultsFresh } from '../errors-shown.ts';
import type { EngineClient } from '../worker/client.ts';
import type { StrategyName } from '../worker/protocol.ts';

/** Synsets drawn at first, and added by each "Show more". */
const STEP_NODES = 60;
/** Most synsets drawn. */
const MAX_NODES = 400;

function numberIn(id: string, min: number, max: number, fallback: number): number {
  const n = Number(byId(id, HTMLInputElement).value);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

function strategyOf(value: string): StrategyName {
  return value === 'gpu-preferred' || value === 'cpu-preferred' ? value : 'auto';
}

/** Wires the panel; resolves once the default word's graph is drawn. */
export async function setUpSpreadPanel(client: EngineClient, synsets: number, edges: number): Promise<void> {
  const wordInput = byId('spread-word', HTMLInputElement);
  const select = byId('spread-synset', HTMLSelectElement);
  const button = byId('spread-run', HTMLButtonElement);
  const more = byId('spread-more', HTMLButtonElement);
  const error = byId('spread-error', HTMLParagraphElement);
  const summary = byId('spread-summary', HTMLParagraphElement);
  const host = byId('spread-graph', HTMLDivElement);
  // d3-force and the view load with this panel, not with the page (less script evaluated before the page responds).
  const { GraphView } = await import('../graph/graph-view.ts');
  const view = new GraphView(host);
  let limit = STEP_NODES;
  byId('wordnet-size', HTMLSpanElement).textContent =
    `${synsets.toLocaleString('en')} synsets, ${edges.toLocaleString('en')} edges`;

  let asked = 0;
  async function fillSynsets(): Promise<void> {
    const ask = ++asked;
    const word = wordInput.value;
    const found = await client.call('synsets', { word });
    if (ask !== asked) return; // a later keystroke asked again
    select.replaceChildren(...found.map((s) => el('option', { value: String(s.node), text: s.text })));
    button.disabled = found.length === 0;
    if (found.length === 0)
      showFailure(error, new RangeError(`“${word}” is not a word of any WordNet synset`), [summary, host]);
    else showResultsFresh(error, []);
  }

  async function run(): Promise<void> {
    const source = Number(select.value);
    if (select.value === '' || !Number.isInteger(source)) return;
    button.disabled = true;
    more.disabled = true;
    button.textContent = 'Spreading…';
    try {
      const options = {
        decay: numberIn('spread-decay', 0.05, 1, 0.5),
        threshold: numberIn('spread-threshold', 0, 1, 0.01),
        maxHops: Math.round(numberIn('spread-hops', 1, 10, 3)),
      };
      const answer = await client.call('spread', {
        source,
        ...options,
        limit,
        strategy: strategyOf(byId('spread-strategy', HTMLSelectElement).value),
      });
      view.show(answer);
      const sourceText = select.selectedOptions[0]?.text ?? String(source);
      summary.textContent = `${options.maxHops} hops from ${sourceText} reached ${answer.reached.toLocaleString('en')} synsets in ${formatDuration(answer.ms)}; the ${answer.nodes.length} most activated are drawn with the ${answer.links.length} edges between them.`;
      summary.dataset['nodes'] = String(answer.nodes.length);
      summary.title = answer.ranOn.join('\n');
      showResultsFresh(error, [summary, host]);
      const shown = answer.nodes.length;
      more.disabled = shown >= Math.min(MAX_NODES, answer.reached) || shown < limit;
      more.textContent = more.disabled
        ? `All ${shown} drawn`
        : `Show ${Math.min(STEP_NODES, MAX_NODES - shown, answer.reached - shown)} more synsets`;
    } catch (e) {
      showFailure(error, e, [summary, host]);
    } finally {
      button.textContent = 'Spread';
      button.disabled = select.value === '';
    }
  }

  wordInput.addEventListener('input', () => void fillSynsets());
  select.addEventListener('change', () => {
    limit = STEP_NODES;
  });
  more.addEventListener('click', () => {
    limit = Math.min(MAX_NODES, limit + STEP_NODES);
    void run();
  });
  byId('spread-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    limit = STEP_NODES;
    void run();
  });
  await fillSynsets();
  await run();
}
