// Word -> synsets of the shipped WordNet graph (case-insensitive; ' ' and '_' alike), built once in the page.

function normalise(word: string): string {
  return word.trim().toLowerCase().replaceAll('_', ' ').replace(/\s+/g, ' ');
}

/** Finds the synsets that have a word among their lemmas. */
export class LemmaIndex {
  private readonly nodesOf = new Map<string, number[]>();

  constructor(lemmas: readonly (readonly string[])[]) {
    for (let node = 0; node < lemmas.length; node++) {
      for (const lemma of lemmas[node] ?? []) {
        const key = normalise(lemma);
        const list = this.nodesOf.get(key);
        if (list === undefined) this.nodesOf.set(key, [node]);
        else if (list[list.length - 1] !== node) list.push(node);
      }
    }
  }

  /** Node indices (ascending) whose lemmas include `word`; [] when none. */
  find(word: string): number[] {
    return [...(this.nodesOf.get(normalise(word)) ?? [])];
  }
}
