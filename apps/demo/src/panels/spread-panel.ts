// The spreading-activation panel: a word -> its synsets -> activation spread on the engine -> the drawn graph.
import type { Engine, Strategy } from '@tandem/core';
import { spreadActivation } from '@tandem/memory';
import type { DemoGraph } from '../data/load-data.ts';
import { byId, el, formatDuration, messageOf } from '../dom.ts';
import { drawGraph } from '../graph/draw-graph.ts';
import { LemmaIndex } from '../graph/lemma-index.ts';
import { topNeighbourhood } from '../graph/neighbourhood.ts';

function numberIn(id: string, min: number, max: number, fallback: number): number {
  const n = Number(byId(id, HTMLInputElement).value);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

/** Wires the panel; resolves once the default word's graph is drawn. */
export async function setUpSpreadPanel(engine: Engine, wordnet: DemoGraph, strategyOf: () => Strategy): Promise<void> {
  const index = new LemmaIndex(wordnet.lemmas);
  const wordInput = byId('spread-word', HTMLInputElement);
  const select = byId('spread-synset', HTMLSelectElement);
  const button = byId('spread-run', HTMLButtonElement);
  const error = byId('spread-error', HTMLParagraphElement);
  const summary = byId('spread-summary', HTMLParagraphElement);
  byId('wordnet-size', HTMLSpanElement).textContent = `${wordnet.synsetIds.length.toLocaleString('en')} synsets, ${wordnet.colIdx.length.toLocaleString('en')} edges`;
  const describe = (node: number): string => `${wordnet.synsetIds[node] ?? '?'} ${(wordnet.lemmas[node] ?? []).join(', ')}`;

  function fillSynsets(): void {
    const nodes = index.find(wordInput.value);
    select.replaceChildren(...nodes.map((node) => el('option', { value: String(node), text: describe(node) })));
    error.hidden = nodes.length > 0;
    if (nodes.length === 0) error.textContent = `"${wordInput.value}" is not a word of any WordNet synset`;
    button.disabled = nodes.length === 0;
  }

  async function run(): Promise<void> {
    const source = Number(select.value);
    if (!Number.isInteger(source)) return;
    button.disabled = true;
    error.hidden = true;
    try {
      const options = { decay: numberIn('spread-decay', 0.05, 1, 0.5), threshold: numberIn('spread-threshold', 0, 1, 0.01), maxHops: Math.round(numberIn('spread-hops', 1, 10, 3)) };
      const started = performance.now();
      const activation = await spreadActivation(engine, wordnet.graph, { sources: [{ node: source, activation: 1 }], ...options, strategy: strategyOf() });
      const ms = performance.now() - started;
      const limit = Math.round(numberIn('spread-limit', 10, 400, 150));
      const { nodes, links } = topNeighbourhood(activation, [source], wordnet.rowPtr, wordnet.colIdx, wordnet.weights, limit);
      let reached = 0;
      for (const a of activation) if (a > 0) reached++;
      drawGraph(byId('spread-graph', HTMLDivElement), nodes, links, (node) => wordnet.lemmas[node]?.[0] ?? '?', describe);
      summary.textContent = `${options.maxHops} hops from ${describe(source)} reached ${reached.toLocaleString('en')} synsets in ${formatDuration(ms)}; the ${nodes.length} most activated are drawn with the ${links.length} edges between them.`;
      summary.dataset['nodes'] = String(nodes.length);
    } catch (e) {
      error.textContent = messageOf(e);
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  }

  wordInput.addEventListener('input', fillSynsets);
  byId('spread-form', HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    void run();
  });
  fillSynsets();
  await run();
}
