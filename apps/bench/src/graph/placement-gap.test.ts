import { describe, expect, it } from 'vitest';
import { placementGap, type TimedRun } from './placement-gap.ts';

/** A run of two nodes. */
function run(hostMs: number, normMs: number, matmulMs: number): TimedRun {
  return {
    hostMs,
    nodes: [
      { name: 'norm', ms: normMs },
      { name: 'matmul', ms: matmulMs },
    ],
  };
}

describe('placementGap', () => {
  it('splits the gap between time outside the nodes and per-node medians, largest node first', () => {
    const auto = [run(0.3, 0.1, 0.5), run(0.32, 0.12, 0.52), run(0.31, 0.11, 9)]; // one slow matmul: medians ignore it
    const other = [run(0.2, 0.1, 0.4), run(0.22, 0.1, 0.41), run(0.21, 0.1, 0.42)];
    const gap = placementGap(auto, other);
    expect(gap.outsideMs).toBeCloseTo(0.1, 9);
    expect(gap.nodesMs).toBeCloseTo(0.11 - 0.1 + (0.52 - 0.41), 9);
    expect(gap.largest.map((g) => g.name)).toEqual(['matmul', 'norm']);
    expect(gap.largest[0]?.ms).toBeCloseTo(0.11, 9);
  });

  it('leaves out nodes only one side ran, and says NaN with no runs', () => {
    const gap = placementGap(
      [
        {
          hostMs: 1,
          nodes: [
            { name: 'a', ms: 1 },
            { name: 'extra', ms: 5 },
          ],
        },
      ],
      [{ hostMs: 1, nodes: [{ name: 'a', ms: 0.5 }] }],
    );
    expect(gap.largest).toEqual([{ name: 'a', ms: 0.5 }]);
    expect(placementGap([], []).outsideMs).toBeNaN();
  });
});
