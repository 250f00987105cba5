import { describe, expect, it } from 'vitest';
import { activationColour, topNeighbourhood } from './neighbourhood.ts';

// 0 <-> 1 (0.75), 1 <-> 2 (0.5), 2 -> 3 (0.25); node 4 isolated.
const rowPtr = Int32Array.from([0, 1, 3, 5, 5, 5]);
const colIdx = Int32Array.from([1, 0, 2, 1, 3]);
const weights = Float32Array.from([0.75, 0.75, 0.5, 0.5, 0.25]); // exact in f32

describe('topNeighbourhood', () => {
  it('keeps the sources and the most activated nodes, with one link per connected pair', () => {
    const activation = Float32Array.from([1, 0.4, 0.2, 0.05, 0]);
    const { nodes, links } = topNeighbourhood(activation, [0], rowPtr, colIdx, weights, 3);
    expect(nodes.map((n) => n.node)).toEqual([0, 1, 2]);
    expect(nodes[0]?.source).toBe(true);
    expect(links).toEqual([
      { a: 0, b: 1, weight: 0.75 },
      { a: 1, b: 2, weight: 0.5 },
    ]);
  });

  it('leaves out nodes with no activation', () => {
    const activation = Float32Array.from([0, 0, 1, 0, 0]);
    const { nodes, links } = topNeighbourhood(activation, [2], rowPtr, colIdx, weights, 10);
    expect(nodes.map((n) => n.node)).toEqual([2]);
    expect(links).toEqual([]);
  });
});

describe('activationColour', () => {
  it('runs from pale yellow to dark red', () => {
    expect(activationColour(0.01, 0.01, 1)).toBe('rgb(255, 237, 160)');
    expect(activationColour(1, 0.01, 1)).toBe('rgb(189, 0, 38)');
    expect(activationColour(0.1, 0.01, 1)).toBe('rgb(253, 141, 60)');
  });
});
