// Lays out a neighbourhood with d3-force (run to rest before drawing, so the picture is stable) and draws it as
// SVG: node colour = activation, size grows with it, sources ringed, the most activated named.
import { forceCenter, forceCollide, forceLink, forceManyBody, forceSimulation, type SimulationLinkDatum, type SimulationNodeDatum } from 'd3-force';
import { activationColour, type GraphLink, type GraphNode } from './neighbourhood.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Nodes that get a text label (the most activated ones). */
const LABELLED = 40;

interface LayoutNode extends SimulationNodeDatum {
  readonly index: number;
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Readonly<Record<string, string | number>>): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  return element;
}

/** Draws `nodes` and `links` into `host` (replacing what was there); `labelOf` names a node. */
export function drawGraph(host: HTMLElement, nodes: readonly GraphNode[], links: readonly GraphLink[], labelOf: (node: number) => string, titleOf: (node: number) => string): void {
  const width = Math.max(320, host.clientWidth || 720);
  const height = 480;
  const layout: LayoutNode[] = nodes.map((_, index) => ({ index }));
  const linkData: SimulationLinkDatum<LayoutNode>[] = links.map((l) => ({ source: l.a, target: l.b }));
  const simulation = forceSimulation(layout)
    .force('link', forceLink<LayoutNode, SimulationLinkDatum<LayoutNode>>(linkData).distance(30).strength(0.6))
    .force('charge', forceManyBody().strength(-40))
    .force('collide', forceCollide(7))
    .force('center', forceCenter(width / 2, height / 2))
    .stop();
  for (let i = 0; i < 300; i++) simulation.tick();

  const activations = nodes.map((n) => n.activation);
  const min = Math.min(...activations);
  const max = Math.max(...activations);
  const xs = layout.map((n) => n.x ?? 0);
  const ys = layout.map((n) => n.y ?? 0);
  // Fit the view to the layout (labels extend to the right).
  const [left, right, top, bottom] = [Math.min(...xs) - 20, Math.max(...xs) + 110, Math.min(...ys) - 20, Math.max(...ys) + 20];
  const root = svg('svg', { viewBox: `${left} ${top} ${right - left} ${bottom - top}`, width: '100%', height, role: 'img', 'aria-label': 'spreading activation graph' });
  const edges = svg('g', { stroke: '#adb5bd' });
  for (const l of links) edges.append(svg('line', { x1: xs[l.a] ?? 0, y1: ys[l.a] ?? 0, x2: xs[l.b] ?? 0, y2: ys[l.b] ?? 0, 'stroke-width': 0.5 + l.weight * 1.5, 'stroke-opacity': 0.7 }));
  root.append(edges);
  const circles = svg('g', {});
  const labels = svg('g', { 'font-size': 11, 'font-family': 'system-ui, sans-serif', fill: '#212529' });
  const byActivation = nodes.map((n, i) => ({ i, a: n.activation })).sort((p, q) => q.a - p.a);
  const labelled = new Set(byActivation.slice(0, LABELLED).map((p) => p.i));
  nodes.forEach((n, i) => {
    const t = max > min ? Math.log(n.activation / min) / Math.log(max / min) : 1;
    const circle = svg('circle', {
      cx: xs[i] ?? 0,
      cy: ys[i] ?? 0,
      r: 3 + 5 * Math.max(0, Math.min(1, t)),
      fill: activationColour(n.activation, min, max),
      stroke: n.source ? '#000' : '#495057',
      'stroke-width': n.source ? 2.5 : 0.5,
      'data-node': n.node,
    });
    const title = svg('title', {});
    title.textContent = `${titleOf(n.node)} — activation ${n.activation.toPrecision(3)}`;
    circle.append(title);
    circles.append(circle);
    if (labelled.has(i) || n.source) {
      const text = svg('text', { x: (xs[i] ?? 0) + 8, y: (ys[i] ?? 0) + 4, 'font-weight': n.source ? 700 : 400 });
      text.textContent = labelOf(n.node);
      labels.append(text);
    }
  });
  root.append(circles, labels);
  host.replaceChildren(root);
}
