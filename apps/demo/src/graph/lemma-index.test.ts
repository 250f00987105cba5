import { describe, expect, it } from 'vitest';
import { LemmaIndex } from './lemma-index.ts';

describe('LemmaIndex', () => {
  it('finds synsets by any of their words, ignoring case, spaces and underscores', () => {
    const index = new LemmaIndex([['dog', 'domestic dog'], ['Dog', 'frump'], ['cat']]);
    expect(index.find('DOG')).toEqual([0, 1]);
    expect(index.find(' domestic_dog ')).toEqual([0]);
    expect(index.find('cat')).toEqual([2]);
    expect(index.find('cow')).toEqual([]);
  });
});
