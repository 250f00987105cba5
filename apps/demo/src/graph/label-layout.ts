// Which nodes of the drawn graph get a label, and where: the most activated first, each label tried right, left,
// above and below its node, kept only where it overlaps no label already placed and no other node's circle, and
// stays inside the view. Labels are drawn at a fixed pixel size, so zooming in makes room for more of them.

/** A node on screen. */
export interface PlacedNode {
  /** Screen x, px. */
  readonly x: number;
  /** Screen y, px. */
  readonly y: number;
  /** Circle radius, px. */
  readonly r: number;
  /** The label's text. */
  readonly text: string;
  /** Placement priority (higher first): the activation. */
  readonly priority: number;
  /** Always label it if it fits anywhere (the source). */
  readonly must: boolean;
}

/** A placed label: the node's position in the input, and the text's anchor (left end of the baseline). */
export interface Label {
  /** Index of the node. */
  readonly node: number;
  /** Anchor x, px. */
  readonly x: number;
  /** Baseline y, px. */
  readonly y: number;
}

interface Box {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

const overlaps = (a: Box, b: Box): boolean =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Labels for `nodes` in a `width` x `height` view; `charWidth` and `lineHeight` in px; at most `max`. */
export function placeLabels(
  nodes: readonly PlacedNode[],
  width: number,
  height: number,
  charWidth: number,
  lineHeight: number,
  max: number,
): Label[] {
  const order = nodes
    .map((_node, i) => i)
    .sort(
      (a, b) =>
        Number(nodes[b]?.must) - Number(nodes[a]?.must) || (nodes[b]?.priority ?? 0) - (nodes[a]?.priority ?? 0),
    );
  const circles: Box[] = nodes.map((n) => ({ left: n.x - n.r, top: n.y - n.r, right: n.x + n.r, bottom: n.y + n.r }));
  const taken: Box[] = [];
  const labels: Label[] = [];
  for (const i of order) {
    if (labels.length >= max) break;
    const n = nodes[i];
    if (n === undefined || n.x < 0 || n.y < 0 || n.x > width || n.y > height) continue;
    const w = n.text.length * charWidth;
    const gap = n.r + 3;
    const candidates: Box[] = [
      { left: n.x + gap, top: n.y - lineHeight / 2, right: n.x + gap + w, bottom: n.y + lineHeight / 2 },
      { left: n.x - gap - w, top: n.y - lineHeight / 2, right: n.x - gap, bottom: n.y + lineHeight / 2 },
      { left: n.x - w / 2, top: n.y - gap - lineHeight, right: n.x + w / 2, bottom: n.y - gap },
      { left: n.x - w / 2, top: n.y + gap, right: n.x + w / 2, bottom: n.y + gap + lineHeight },
    ];
    const fits = (box: Box): boolean =>
      box.left >= 0 &&
      box.top >= 0 &&
      box.right <= width &&
      box.bottom <= height &&
      !taken.some((t) => overlaps(t, box)) &&
      !circles.some((c, j) => j !== i && overlaps(c, box));
    const box = candidates.find(fits);
    if (box === undefined) continue;
    taken.push(box);
    labels.push({ node: i, x: box.left, y: box.bottom - lineHeight * 0.25 });
  }
  return labels;
}
