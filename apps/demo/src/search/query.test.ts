import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { parseQuery, queryVector } from './query.ts';

describe('parseQuery', () => {
  it('reads one word and analogies with either spacing', () => {
    expect(parseQuery('  Paris ')).toEqual([{ word: 'paris', sign: 1 }]);
    expect(parseQuery('king - man + woman')).toEqual([
      { word: 'king', sign: 1 },
      { word: 'man', sign: -1 },
      { word: 'woman', sign: 1 },
    ]);
    expect(parseQuery('king-man+woman')).toEqual(parseQuery('king - man + woman'));
    expect(parseQuery('-cold')).toEqual([{ word: 'cold', sign: -1 }]);
  });

  it.each([
    ['', 'at least one word'],
    ['king man', 'needs + or -'],
    ['king + - man', 'two operators'],
    ['king +', 'ends with an operator'],
    ['a+b+c+d+e+f+g+h+i', 'at most 8'],
  ])('rejects %j (%s)', (text, message) => {
    expect(() => parseQuery(text)).toThrow(InvalidArgumentError);
    expect(() => parseQuery(text)).toThrow(message);
  });
});

describe('queryVector', () => {
  const rowOf = new Map([
    ['a', 0],
    ['b', 1],
  ]);
  const vectors = Float32Array.from([1, 2, 10, 20]);

  it('sums the signed rows', () => {
    expect([...queryVector(parseQuery('b - a'), rowOf, vectors, 2)]).toEqual([9, 18]);
  });

  it('names an unknown word', () => {
    expect(() => queryVector(parseQuery('a + zebra'), rowOf, vectors, 2)).toThrow(/zebra.*not among the 2 words/);
  });
});
