// The spreading-activation graph as SVG, laid out by d3-force a few ticks per animation frame (at most FRAME_MS of
// work each), so the page never waits for the layout (300 ticks at once held it far past 50 ms: issue 33). Scroll zooms about the
// pointer, dragging the background pans, dragging a synset moves it (the layout follows). Labels are placed at a
// fixed pixel size where they overlap nothing (label-layout.ts): zooming in shows more of them.
import {
  forceCenter,
  forceCollide,
  forceLink,
  forceManyBody,
  forceSimulation,
  type Simulation,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from 'd3-force';
import type { SpreadAnswer } from '../worker/protocol.ts';
import { placeLabels, type PlacedNode } from './label-layout.ts';
import { activationColour } from './neighbourhood.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Layout work per animation frame, ms. */
const FRAME_MS = 6;
/** Most labels shown at once. */
const MAX_LABELS = 80;
const FONT_PX = 12;
const HEIGHT = 480;

interface LayoutNode extends SimulationNodeDatum {
  readonly index: number;
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string | number>> = {},
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  return element;
}

/** The graph of one spread, live. */
export class GraphView {
  private readonly host: HTMLElement;
  private simulation: Simulation<LayoutNode, undefined> | undefined;
  private frame: number | undefined;
  private view = { k: 1, x: 0, y: 0 };
  private userMoved = false;
  /** Fits the drawing to the host's new width (set by show). */
  private resized: (() => void) | undefined;

  constructor(host: HTMLElement) {
    this.host = host;
    // Follows the page's width (a phone turned, a window resized): a drawing made at 1,280 px must not overflow at 390.
    new ResizeObserver(() => this.resized?.()).observe(host);
  }

  /** The drawing's width for the host's current width, px. */
  private widthNow(): number {
    return Math.max(260, this.host.clientWidth || 720);
  }

  /** Draws `answer` (replacing what was there) and starts its layout. */
  show(answer: SpreadAnswer): void {
    this.stop();
    let width = this.widthNow();
    const nodes: LayoutNode[] = answer.nodes.map((_, index) => ({ index }));
    const links: SimulationLinkDatum<LayoutNode>[] = answer.links.map((l) => ({ source: l.a, target: l.b }));
    const simulation = forceSimulation(nodes)
      .force('link', forceLink<LayoutNode, SimulationLinkDatum<LayoutNode>>(links).distance(34).strength(0.6))
      .force('charge', forceManyBody().strength(-60))
      .force('collide', forceCollide(8))
      .force('center', forceCenter(0, 0))
      .stop();
    this.simulation = simulation;
    this.userMoved = false;
    const activations = answer.nodes.map((n) => n.activation);
    const min = Math.min(...activations);
    const max = Math.max(...activations);
    const radius = answer.nodes.map(
      (n) => 3 + 5 * Math.max(0, Math.min(1, max > min ? Math.log(n.activation / min) / Math.log(max / min) : 1)),
    );

    const root = svg('svg', { width, height: HEIGHT, role: 'img', 'aria-label': 'spreading activation graph' });
    const edges = svg('g', { stroke: '#adb5bd' });
    const lines = answer.links.map((l) =>
      edges.appendChild(svg('line', { 'stroke-width': 0.5 + l.weight * 1.5, 'stroke-opacity': 0.7 })),
    );
    const circleGroup = svg('g');
    const circles = answer.nodes.map((n, i) => {
      const circle = svg('circle', {
        r: radius[i] ?? 4,
        fill: activationColour(n.activation, min, max),
        stroke: n.source ? '#000' : '#495057',
        'stroke-width': n.source ? 2.5 : 0.5,
        'data-node': n.node,
      });
      const title = svg('title');
      title.textContent = `${answer.titles[i] ?? ''} — activation ${n.activation.toPrecision(3)}`;
      circle.append(title);
      return circleGroup.appendChild(circle);
    });
    const labelGroup = svg('g', { 'font-size': FONT_PX, 'font-family': 'system-ui, sans-serif', fill: '#212529' });
    root.append(edges, circleGroup, labelGroup);
    this.host.replaceChildren(root);

    const screen = (n: LayoutNode): { x: number; y: number } => ({
      x: (n.x ?? 0) * this.view.k + this.view.x,
      y: (n.y ?? 0) * this.view.k + this.view.y,
    });
    const fit = (): void => {
      const xs = nodes.map((n) => n.x ?? 0);
      const ys = nodes.map((n) => n.y ?? 0);
      const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
      const k = Math.min(2, (width - 60) / Math.max(1, right - left), (HEIGHT - 40) / Math.max(1, bottom - top));
      this.view = { k, x: width / 2 - ((left + right) / 2) * k, y: HEIGHT / 2 - ((top + bottom) / 2) * k };
    };
    const placeTextLabels = (): void => {
      const placed: PlacedNode[] = nodes.map((n, i) => ({
        ...screen(n),
        r: radius[i] ?? 4,
        text: answer.labels[i] ?? '',
        priority: answer.nodes[i]?.activation ?? 0,
        must: answer.nodes[i]?.source === true,
      }));
      const labels = placeLabels(placed, width, HEIGHT, FONT_PX * 0.58, FONT_PX + 2, MAX_LABELS);
      labelGroup.replaceChildren(
        ...labels.map((l) => {
          const text = svg('text', {
            x: l.x,
            y: l.y,
            'font-weight': answer.nodes[l.node]?.source === true ? 700 : 400,
          });
          text.textContent = answer.labels[l.node] ?? '';
          return text;
        }),
      );
    };
    const render = (withLabels: boolean): void => {
      if (!this.userMoved) fit();
      answer.links.forEach((l, i) => {
        const a = nodes[l.a];
        const b = nodes[l.b];
        const line = lines[i];
        if (a === undefined || b === undefined || line === undefined) return;
        const pa = screen(a);
        const pb = screen(b);
        line.setAttribute('x1', String(pa.x));
        line.setAttribute('y1', String(pa.y));
        line.setAttribute('x2', String(pb.x));
        line.setAttribute('y2', String(pb.y));
      });
      nodes.forEach((n, i) => {
        const p = screen(n);
        circles[i]?.setAttribute('cx', String(p.x));
        circles[i]?.setAttribute('cy', String(p.y));
      });
      if (withLabels) placeTextLabels();
    };
    const step = (): void => {
      this.frame = undefined;
      const until = performance.now() + FRAME_MS;
      while (simulation.alpha() > simulation.alphaMin() && performance.now() < until) simulation.tick();
      const settled = simulation.alpha() <= simulation.alphaMin();
      // Labels are placed once the layout has settled: placing 400 of them took ~30 ms, which beside a sweep chart's
      // frame made one task of 63 ms.
      render(settled);
      this.host.dataset['layout'] = settled ? 'settled' : 'running';
      if (!settled) this.frame = requestAnimationFrame(step);
    };
    const restart = (): void => {
      this.frame ??= requestAnimationFrame(step);
    };
    this.interact(
      root,
      nodes,
      circles,
      () => render(true),
      (alpha) => {
        simulation.alpha(Math.max(simulation.alpha(), alpha));
        restart();
      },
    );
    render(true);
    restart();
    this.resized = () => {
      const now = this.widthNow();
      if (now === width) return;
      width = now;
      root.setAttribute('width', String(width));
      render(true);
    };
  }

  /** Stops the layout (the drawing stays). */
  stop(): void {
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.frame = undefined;
    this.simulation?.stop();
  }

  /** Zoom on wheel, pan on background drag, move a node on its drag. */
  private interact(
    root: SVGSVGElement,
    nodes: readonly LayoutNode[],
    circles: readonly SVGCircleElement[],
    redraw: () => void,
    reheat: (alpha: number) => void,
  ): void {
    // biome-ignore lint/correctness/noUnusedVariables: read by ??= (one frame pending at most)
    let frame: number | undefined;
    const later = (): void => {
      frame ??= requestAnimationFrame(() => {
        frame = undefined;
        redraw();
      });
    };
    const local = (event: { clientX: number; clientY: number }): { x: number; y: number } => {
      const box = root.getBoundingClientRect();
      return { x: event.clientX - box.left, y: event.clientY - box.top };
    };
    root.addEventListener(
      'wheel',
      (event) => {
        event.preventDefault();
        const p = local(event);
        const factor = Math.exp(-event.deltaY * 0.002);
        const k = Math.min(8, Math.max(0.2, this.view.k * factor));
        this.view = {
          k,
          x: p.x - ((p.x - this.view.x) * k) / this.view.k,
          y: p.y - ((p.y - this.view.y) * k) / this.view.k,
        };
        this.userMoved = true;
        later();
      },
      { passive: false },
    );
    root.addEventListener('pointerdown', (event) => {
      const start = local(event);
      // biome-ignore lint/complexity/useIndexOf: event.target is any EventTarget, not an SVGCircleElement
      const index = circles.findIndex((c) => c === event.target);
      const node = nodes[index];
      const origin = { ...this.view };
      root.setPointerCapture(event.pointerId);
      const move = (e: PointerEvent): void => {
        const p = local(e);
        if (node !== undefined) {
          node.fx = (p.x - this.view.x) / this.view.k;
          node.fy = (p.y - this.view.y) / this.view.k;
          reheat(0.3);
        } else {
          this.view = { ...origin, x: origin.x + p.x - start.x, y: origin.y + p.y - start.y };
          later();
        }
        this.userMoved = true;
      };
      const up = (): void => {
        root.removeEventListener('pointermove', move);
        root.removeEventListener('pointerup', up);
        if (node !== undefined) {
          node.fx = null;
          node.fy = null;
        }
      };
      root.addEventListener('pointermove', move);
      root.addEventListener('pointerup', up);
    });
  }
}
