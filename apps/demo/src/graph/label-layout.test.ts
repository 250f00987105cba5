import { describe, expect, it } from 'vitest';
import { placeLabels, type PlacedNode } from './label-layout.ts';

const node = (x: number, y: number, text: string, priority: number, must = false): PlacedNode => ({
  x,
  y,
  r: 4,
  text,
  priority,
  must,
});

describe('placeLabels', () => {
  it('places labels that overlap neither each other nor other circles, most activated first', () => {
    // Three nodes on one spot's neighbourhood: the right side of the first blocks the second's right side.
    const nodes = [
      node(100, 100, 'dog', 1),
      node(104, 104, 'domestic dog', 0.9),
      node(300, 100, 'cat', 0.1),
      node(100, 100.5, 'hidden', 0.05),
    ];
    const labels = placeLabels(nodes, 400, 200, 7, 12, 10);
    const boxes = labels.map((l) => ({
      left: l.x,
      right: l.x + (nodes[l.node]?.text.length ?? 0) * 7,
      top: l.y + 3 - 12,
      bottom: l.y + 3,
    }));
    for (let a = 0; a < boxes.length; a++)
      for (let b = a + 1; b < boxes.length; b++) {
        const p = boxes[a];
        const q = boxes[b];
        if (p !== undefined && q !== undefined)
          expect(p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom).toBe(false);
      }
    expect(labels.map((l) => l.node)).toContain(0);
    expect(labels.map((l) => l.node)).toContain(2);
  });

  it('keeps labels inside the view and stops at the maximum; the source goes first', () => {
    const nodes = [
      node(395, 100, 'edge of the view', 1),
      ...Array.from({ length: 20 }, (_, i) => node(20 + i * 18, 20 + (i % 2) * 60, `n${i}`, 0.5)),
      node(200, 150, 'source', 0, true),
    ];
    const labels = placeLabels(nodes, 400, 200, 7, 12, 5);
    expect(labels).toHaveLength(5);
    expect(labels[0]?.node).toBe(nodes.length - 1);
    for (const l of labels) expect(l.x).toBeGreaterThanOrEqual(0);
  });
});
