// CsrGraph construction from edges and from CSR arrays, with every validation rule.
import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { CsrGraph } from './csr-graph.ts';

describe('CsrGraph.fromEdges', () => {
  it('groups edges by source, keeping their order within a row', () => {
    const g = CsrGraph.fromEdges(4, [
      { from: 2, to: 0, weight: 0.5 },
      { from: 0, to: 1, weight: 1 },
      { from: 2, to: 3, weight: 0.25 },
      { from: 0, to: 2, weight: 2 },
    ]);
    expect([g.nodeCount, g.edgeCount]).toEqual([4, 4]);
    expect(Array.from(g.rowPtr)).toEqual([0, 2, 2, 4, 4]);
    expect(Array.from(g.colIdx)).toEqual([1, 2, 0, 3]);
    expect(Array.from(g.weights)).toEqual([1, 2, 0.5, 0.25]);
  });

  it('accepts an empty graph and a graph without edges', () => {
    expect(Array.from(CsrGraph.fromEdges(0, []).rowPtr)).toEqual([0]);
    const g = CsrGraph.fromEdges(3, []);
    expect([g.nodeCount, g.edgeCount, Array.from(g.rowPtr)]).toEqual([3, 0, [0, 0, 0, 0]]);
  });

  it.each([
    ['a negative node count', -1, [], /nodeCount = -1/],
    ['a fractional node count', 1.5, [], /nodeCount = 1.5/],
    ['a source out of range', 2, [{ from: 2, to: 0, weight: 1 }], /edges\[0\]\.from = 2: must be a node in \[0, 1\]/],
    ['a target out of range', 2, [{ from: 0, to: -1, weight: 1 }], /edges\[0\]\.to = -1/],
    ['a fractional node', 2, [{ from: 0, to: 0.5, weight: 1 }], /edges\[0\]\.to = 0.5/],
    [
      'a NaN weight',
      2,
      [
        { from: 0, to: 1, weight: 1 },
        { from: 1, to: 0, weight: Number.NaN },
      ],
      /edges\[1\]\.weight = NaN: must be finite/,
    ],
    ['an infinite weight', 2, [{ from: 0, to: 1, weight: Number.POSITIVE_INFINITY }], /weight = Infinity/],
  ] as const)('rejects %s', (_name, nodes, edges, message) => {
    expect(() => CsrGraph.fromEdges(nodes, [...edges])).toThrow(InvalidArgumentError);
    expect(() => CsrGraph.fromEdges(nodes, [...edges])).toThrow(message);
  });
});

describe('CsrGraph.fromCsr', () => {
  it('copies valid arrays, Int32Array or Uint32Array', () => {
    const rowPtr = Int32Array.of(0, 2, 3, 3);
    const colIdx = Int32Array.of(1, 2, 2);
    const weights = Float32Array.of(0.5, 1, 2);
    const g = CsrGraph.fromCsr(rowPtr, colIdx, weights);
    colIdx[0] = 0;
    weights[0] = 9;
    expect([g.nodeCount, g.edgeCount]).toEqual([3, 3]);
    expect(Array.from(g.colIdx)).toEqual([1, 2, 2]);
    expect(Array.from(g.weights)).toEqual([0.5, 1, 2]);
    expect(CsrGraph.fromCsr(Uint32Array.of(0, 1), Uint32Array.of(0), Float32Array.of(1)).edgeCount).toBe(1);
  });

  const w3 = Float32Array.of(1, 1, 1);
  it.each([
    ['an empty rowPtr', new Int32Array(0), Int32Array.of(), new Float32Array(0), /rowPtr\.length = 0/],
    ['rowPtr not starting at 0', Int32Array.of(1, 2, 3, 3), Int32Array.of(0, 1, 2), w3, /rowPtr\[0\] = 1: must be 0/],
    [
      'decreasing rowPtr',
      Int32Array.of(0, 2, 1, 3),
      Int32Array.of(0, 1, 2),
      w3,
      /rowPtr\[2\] = 1: must be >= rowPtr\[1\] \(2\)/,
    ],
    [
      'rowPtr not ending at the edge count',
      Int32Array.of(0, 1, 2, 2),
      Int32Array.of(0, 1, 2),
      w3,
      /rowPtr\[3\] = 2: must equal the edge count \(3\)/,
    ],
    [
      'a column out of range',
      Int32Array.of(0, 1, 2, 3),
      Int32Array.of(0, 3, 2),
      w3,
      /colIdx\[1\] = 3: must be a node in \[0, 2\]/,
    ],
    ['a negative column', Int32Array.of(0, 1, 2, 3), Int32Array.of(0, 1, -2), w3, /colIdx\[2\] = -2/],
    [
      'a NaN weight',
      Int32Array.of(0, 1, 2, 3),
      Int32Array.of(0, 1, 2),
      Float32Array.of(1, Number.NaN, 1),
      /weights\[1\] = NaN: must be finite/,
    ],
    [
      'weights of another length',
      Int32Array.of(0, 1, 2, 3),
      Int32Array.of(0, 1, 2),
      Float32Array.of(1, 1),
      /weights\.length = 2: must equal colIdx\.length \(3\)/,
    ],
  ] as const)('rejects %s', (_name, rowPtr, colIdx, weights, message) => {
    expect(() => CsrGraph.fromCsr(rowPtr, colIdx, weights)).toThrow(InvalidArgumentError);
    expect(() => CsrGraph.fromCsr(rowPtr, colIdx, weights)).toThrow(message);
  });
});
