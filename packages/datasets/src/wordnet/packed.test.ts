import { describe, expect, it } from 'vitest';
import { findSynsets } from './find.ts';
import { loadWordNet } from './load.ts';
import { PackedWordNet } from './packed.ts';
import type { WordNetGraph } from '../types.ts';

/** A small graph with the awkward cases: no lemmas, a repeated lemma, case and '_' variants, non-ASCII text. */
const SMALL: Pick<WordNetGraph, 'synsetIds' | 'lemmas' | 'glosses'> = {
  synsetIds: ['n:00001740', 'v:00000007', 'n:02086723', 'a:00000100', 's:00000100'],
  lemmas: [['entity'], [], ['dog', 'domestic dog', 'Canis familiaris', 'dog'], ['Dog', 'naïve'], ['domestic_dog']],
  glosses: ['that which exists', '', 'a member of the genus Canis', 'café «crème»', 'x'],
};

/** Every synset's id, lemmas and gloss, and the node of every id, the same packed as unpacked. */
function expectSameSynsets(graph: Pick<WordNetGraph, 'synsetIds' | 'lemmas' | 'glosses'>, packed: PackedWordNet): void {
  expect(packed.count).toBe(graph.synsetIds.length);
  for (let i = 0; i < packed.count; i++) {
    if (packed.synsetId(i) !== graph.synsetIds[i]) expect(packed.synsetId(i)).toBe(graph.synsetIds[i]);
    if (packed.gloss(i) !== graph.glosses[i]) expect(packed.gloss(i)).toBe(graph.glosses[i]);
    const lemmas = packed.lemmas(i);
    if (lemmas.join('|') !== graph.lemmas[i]?.join('|')) expect(lemmas).toEqual(graph.lemmas[i]);
    if (packed.nodeOf(graph.synsetIds[i] ?? '') !== i) expect(packed.nodeOf(graph.synsetIds[i] ?? '')).toBe(i);
  }
}

describe('PackedWordNet', () => {
  it('gives back every id, lemma list and gloss, and finds lemmas as findSynsets does', () => {
    const packed = new PackedWordNet(SMALL);
    expectSameSynsets(SMALL, packed);
    const graph = { ...SMALL, rowPtr: new Int32Array(6), colIdx: new Int32Array(0), weights: new Float32Array(0) };
    for (const word of [
      'dog',
      'DOG',
      ' domestic   dog ',
      'domestic_dog',
      'naïve',
      'entity',
      'cat',
      '',
      'canis familiaris',
    ])
      expect(packed.synsetsOf(word), word).toEqual(findSynsets(graph, word));
    expect(packed.synsetsOf('dog')).toEqual([2, 3]);
    expect(packed.synsetsOf('domestic dog')).toEqual([2, 4]);
  });

  it('finds ids only in their canonical text', () => {
    const packed = new PackedWordNet(SMALL);
    for (const id of ['n:2086723', 'n:0x1FD4F3', 'n:02086723 ', 'x:02086723', 'n:99999999', 'n02086723', '', 'n:'])
      expect(packed.nodeOf(id), id).toBeUndefined();
    expect(packed.nodeOf('s:00000100')).toBe(4);
    expect(packed.nodeOf('a:00000100')).toBe(3);
  });

  it('refuses an id that is not "<pos>:<offset>"', () => {
    expect(() => new PackedWordNet({ synsetIds: ['noun:1'], lemmas: [[]], glosses: [''] })).toThrow(
      /synset 0: id "noun:1"/,
    );
  });

  it('holds all of WordNet 3.1 as the loader gives it', async () => {
    const graph = await loadWordNet();
    const packed = new PackedWordNet(graph);
    expectSameSynsets(graph, packed);
    const lemmas = [...new Set(graph.lemmas.flat())];
    for (let i = 0; i < lemmas.length; i += 97) {
      const lemma = lemmas[i] ?? '';
      const got = packed.synsetsOf(lemma);
      const want = findSynsets(graph, lemma);
      if (got.join() !== want.join()) expect(got, lemma).toEqual(want);
    }
  });
});
