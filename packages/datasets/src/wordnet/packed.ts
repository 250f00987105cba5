// WordNet's text packed into a few long strings and typed arrays, for long-lived processes (the server). As JS
// objects (an id, a lemma array and a gloss string per synset, a Map per index) WordNet is ~600,000 heap objects
// that every major GC marks: a full GC of a process holding it took ~50 ms more than one without it, a stall that
// every request shares. Packed, it is a handful of objects; strings are cut out on demand (docs/decisions.md).
import { DatasetError } from '../errors.ts';
import type { WordNetGraph } from '../types.ts';
import { normalise } from './find.ts';

/** Separates the lemmas of one synset, and the keys of the lemma index, in their packed strings. */
const SEPARATOR = '\u0001';

/** A synset's id text: its part of speech, ':' and its offset in 8 digits ("n:02086723"). */
function idText(pos: number, offset: number): string {
  return `${String.fromCharCode(pos)}:${String(offset).padStart(8, '0')}`;
}

/** A synset id ("n:02086723") as one number: its offset times 256 plus its part-of-speech character's code. */
function idKey(pos: number, offset: number): number {
  return offset * 256 + pos;
}

/** `keys` ascending, each with its index (typed arrays: a binary search over them creates no objects). */
function sortedPairs(keys: Float64Array): { keys: Float64Array; nodes: Int32Array } {
  const order = Array.from(keys.keys()).sort((a, b) => (keys[a] ?? 0) - (keys[b] ?? 0));
  return { keys: Float64Array.from(order, (i) => keys[i] ?? 0), nodes: Int32Array.from(order) };
}

/** The index i in [0, length) where `compare(i)` is 0, over entries ascending (negative: entry i is before), or -1. */
function binarySearch(length: number, compare: (i: number) => number): number {
  let lo = 0;
  let hi = length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(mid);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** WordNet's synsets (ids, lemmas, glosses) and lemma index in packed form; the graph's CSR arrays stay apart. */
export class PackedWordNet {
  /** Synsets. */
  readonly count: number;
  /** Part-of-speech character code of each synset's id. */
  private readonly pos: Uint8Array;
  /** Byte offset of each synset's id. */
  private readonly offset: Uint32Array;
  /** Every synset's lemmas, SEPARATOR between them, synsets back to back. */
  private readonly lemmaText: string;
  /** Where each synset's lemmas end in lemmaText ([count]; synset i starts where i - 1 ends). */
  private readonly lemmaEnd: Uint32Array;
  /** Every gloss, back to back. */
  private readonly glossText: string;
  /** Where each gloss ends in glossText. */
  private readonly glossEnd: Uint32Array;
  /** Id keys (idKey) ascending, and the node of each. */
  private readonly ids: { keys: Float64Array; nodes: Int32Array };
  /** Normalised lemmas, ascending, SEPARATOR-joined; lookups cut one out per comparison. */
  private readonly keyText: string;
  /** Where each normalised lemma ends in keyText. */
  private readonly keyEnd: Uint32Array;
  /** Where each lemma's nodes end in postings ([keys]). */
  private readonly postingEnd: Uint32Array;
  /** Nodes of each lemma, ascending per lemma, lemmas back to back. */
  private readonly postings: Int32Array;

  /** Packs `graph`'s ids, lemmas and glosses (the graph itself can then be dropped). */
  constructor(graph: Pick<WordNetGraph, 'synsetIds' | 'lemmas' | 'glosses'>) {
    const n = graph.synsetIds.length;
    this.count = n;
    this.pos = new Uint8Array(n);
    this.offset = new Uint32Array(n);
    const idKeys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const id = graph.synsetIds[i] ?? '';
      const colon = id.indexOf(':');
      if (colon !== 1) throw new DatasetError('synsetIds', `synset ${i}: id "${id}" is not "<pos>:<offset>"`);
      this.pos[i] = id.charCodeAt(0);
      this.offset[i] = Number(id.slice(2));
      idKeys[i] = idKey(this.pos[i] ?? 0, this.offset[i] ?? 0);
    }
    this.ids = sortedPairs(idKeys);
    [this.lemmaText, this.lemmaEnd] = pack(graph.lemmas.map((l) => l.join(SEPARATOR)));
    [this.glossText, this.glossEnd] = pack(graph.glosses);
    const byLemma = new Map<string, number[]>();
    graph.lemmas.forEach((lemmas, node) => {
      for (const lemma of lemmas) {
        const key = normalise(lemma);
        const nodes = byLemma.get(key);
        if (nodes === undefined) byLemma.set(key, [node]);
        else if (nodes[nodes.length - 1] !== node) nodes.push(node);
      }
    });
    const keys = [...byLemma.keys()].sort();
    [this.keyText, this.keyEnd] = pack(keys, SEPARATOR.length);
    this.postings = Int32Array.from(keys.flatMap((k) => byLemma.get(k) ?? []));
    this.postingEnd = new Uint32Array(keys.length);
    let end = 0;
    keys.forEach((k, i) => {
      end += byLemma.get(k)?.length ?? 0;
      this.postingEnd[i] = end;
    });
  }

  /** Synset `node`'s id, e.g. "n:02086723". */
  synsetId(node: number): string {
    return idText(this.pos[node] ?? 0, this.offset[node] ?? 0);
  }

  /** Synset `node`'s lemmas. */
  lemmas(node: number): string[] {
    const text = this.lemmaText.slice(node === 0 ? 0 : (this.lemmaEnd[node - 1] ?? 0), this.lemmaEnd[node] ?? 0);
    return text === '' ? [] : text.split(SEPARATOR);
  }

  /** Synset `node`'s gloss. */
  gloss(node: number): string {
    return this.glossText.slice(node === 0 ? 0 : (this.glossEnd[node - 1] ?? 0), this.glossEnd[node] ?? 0);
  }

  /** The node of synset `id` ("n:02086723"), or undefined. */
  nodeOf(id: string): number | undefined {
    if (id.length < 3 || id[1] !== ':') return undefined;
    const offset = Number(id.slice(2));
    // Only the canonical text names a synset ("n:2086723" and "n:0x1FD4F3" do not).
    if (!Number.isInteger(offset) || idText(id.charCodeAt(0), offset) !== id) return undefined;
    const key = idKey(id.charCodeAt(0), offset);
    const at = binarySearch(this.ids.keys.length, (i) => (this.ids.keys[i] ?? 0) - key);
    return at < 0 ? undefined : this.ids.nodes[at];
  }

  /** Nodes (ascending) of the synsets with `lemma` among their words, as findSynsets finds them; [] when none. */
  synsetsOf(lemma: string): number[] {
    const key = normalise(lemma);
    const at = binarySearch(this.keyEnd.length, (i) => {
      const k = this.keyText.slice(i === 0 ? 0 : (this.keyEnd[i - 1] ?? 0) + SEPARATOR.length, this.keyEnd[i] ?? 0);
      return k < key ? -1 : k > key ? 1 : 0;
    });
    if (at < 0) return [];
    return Array.from(this.postings.subarray(at === 0 ? 0 : this.postingEnd[at - 1], this.postingEnd[at]));
  }
}

/** `parts` back to back (`gap` separator characters between them) and where each ends. */
function pack(parts: readonly string[], gap = 0): [string, Uint32Array] {
  const ends = new Uint32Array(parts.length);
  let end = 0;
  parts.forEach((p, i) => {
    end += (i === 0 ? 0 : gap) + p.length;
    ends[i] = end;
  });
  return [parts.join(gap === 0 ? '' : SEPARATOR), ends];
}
