// Small DOM helpers for the demo pages (no framework).

/** Attributes and properties of a new element: strings become attributes, `text` its text content. */
export type ElementSpec = Readonly<Record<string, string>> & { readonly text?: string };

/** A new element with attributes and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  spec: ElementSpec = {},
  children: readonly (Node | string)[] = [],
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'text') element.textContent = value;
    else element.setAttribute(key, value);
  }
  for (const child of children) element.append(child);
  return element;
}

/** The element with this id, of the expected class; throws when the page lacks it (a broken index.html). */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no <${type.name}> #${id}`);
  return found;
}

/** A number with a few significant digits and a unit, e.g. 0.123 ms, 12.3 ms, 1.23 s. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toPrecision(3)} ms`;
  return `${(ms * 1000).toPrecision(3)} µs`;
}

/** A ratio for reading: 3,590× rather than 3590.2x; one decimal below 10. */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return '—';
  return ratio >= 10 ? `${Math.round(ratio).toLocaleString('en')}×` : `${ratio.toFixed(1)}×`;
}

/** Megabytes with one decimal. */
export function formatMB(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
