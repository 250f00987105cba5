import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { spreadActivation, type CsrGraph } from './spread_activation.ts';

// 0 -> 1 (0.5), 0 -> 2 (1), 1 -> 2 (2); node 2 has no edges.
const graph: CsrGraph = {
  rowPtr: Uint32Array.of(0, 2, 3, 3),
  colIdx: Uint32Array.of(1, 2, 2),
  weights: Float32Array.of(0.5, 1, 2),
};
const initial = Float32Array.of(1, 0, 0);

describe('spreadActivation', () => {
  it('one hop: next[j] = a[j] + decay * sum w * a[i]', () => {
    // node 1: 0 + 0.5 * 0.5 = 0.25; node 2: 0 + 0.5 * 1 = 0.5 (node 1 had 0 activation, so nothing via 1 -> 2)
    expect(Array.from(spreadActivation(graph, initial, { decay: 0.5, threshold: 0.1, iterations: 1 }))).toEqual([
      1, 0.25, 0.5,
    ]);
  });

  it('two hops, synchronously: hop 2 reads hop 1 activations', () => {
    // hop 2: node 1: 0.25 + 0.5 * 0.5 = 0.5; node 2: 0.5 + 0.5 * (1 * 1 + 2 * 0.25) = 1.25
    expect(Array.from(spreadActivation(graph, initial, { decay: 0.5, threshold: 0.1, iterations: 2 }))).toEqual([
      1, 0.5, 1.25,
    ]);
  });

  it('nodes below the threshold do not spread', () => {
    // threshold 0.3: node 1 (0.25) stays silent in hop 2; node 2: 0.5 + 0.5 * 1 = 1
    expect(Array.from(spreadActivation(graph, initial, { decay: 0.5, threshold: 0.3, iterations: 2 }))).toEqual([
      1, 0.5, 1,
    ]);
  });

  it('rejects malformed CSR arrays', () => {
    const params = { decay: 0.5, threshold: 0, iterations: 1 };
    expect(() => spreadActivation({ ...graph, colIdx: Uint32Array.of(1, 2, 3) }, initial, params)).toThrow(
      InvalidArgumentError,
    );
    expect(() => spreadActivation({ ...graph, rowPtr: Uint32Array.of(0, 2, 1, 3) }, initial, params)).toThrow(
      /rowPtr\[2\]/,
    );
    expect(() => spreadActivation({ ...graph, rowPtr: Uint32Array.of(0, 2, 3, 2) }, initial, params)).toThrow(
      /edge count/,
    );
  });
});
