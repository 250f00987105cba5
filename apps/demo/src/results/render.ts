// Renders one bench suite: when and where it ran, its verdicts, its plots (the SVGs its JSON names, each linked to
// full size), and its rows as tables (one per `section` when the rows have one), numbers rounded for reading.
import { el } from '../dom.ts';
import { suitePlotFiles, type BenchRow, type BenchSuite } from './bench-format.ts';

/** A cell's text: numbers with 3-4 significant digits, booleans as yes/no. */
export function formatCell(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString('en');
  const a = Math.abs(value);
  if (a >= 100) return value.toFixed(1);
  if (a >= 1) return value.toFixed(3);
  return value.toPrecision(3);
}

/** Rows grouped by their `section` column (one group named '' when there is none), in first-seen order. */
export function groupBySection(rows: readonly BenchRow[]): Map<string, BenchRow[]> {
  const groups = new Map<string, BenchRow[]>();
  for (const row of rows) {
    const section = typeof row['section'] === 'string' ? row['section'] : '';
    const list = groups.get(section) ?? [];
    list.push(row);
    groups.set(section, list);
  }
  return groups;
}

function table(rows: readonly BenchRow[]): HTMLTableElement {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((c) => c !== 'section');
  return el('table', { class: 'bench-table' }, [
    el('thead', {}, [
      el(
        'tr',
        {},
        columns.map((c) => el('th', { text: c })),
      ),
    ]),
    el(
      'tbody',
      {},
      rows.map((r) =>
        el(
          'tr',
          {},
          columns.map((c) => el('td', { class: typeof r[c] === 'number' ? 'num' : '', text: formatCell(r[c]) })),
        ),
      ),
    ),
  ]);
}

/** The section element of one suite (with id `suite-<name>`). */
export function renderSuite(
  suite: BenchSuite,
  plots: readonly string[],
  plotUrl: (file: string) => string,
): HTMLElement {
  const machine = Object.entries(suite.machine)
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
  const section = el('section', { id: `suite-${suite.suite}`, 'data-suite': suite.suite }, [
    el('h2', { text: suite.suite }),
    el('p', { class: 'help', text: `${new Date(suite.date).toLocaleString('en')} · ${machine}` }),
  ]);
  if (suite.verdicts.length > 0)
    section.append(
      el(
        'ul',
        { class: 'verdicts' },
        suite.verdicts.map((v) => el('li', { text: v })),
      ),
    );
  const { shown, missing } = suitePlotFiles(suite, plots);
  if (shown.length > 0) {
    section.append(
      el(
        'div',
        { class: 'plots' },
        shown.map((p) =>
          el('figure', {}, [
            el('a', { href: plotUrl(p.file), target: '_blank' }, [
              el('img', { src: plotUrl(p.file), alt: p.title, class: 'plot' }),
            ]),
            el('figcaption', { text: p.title }),
          ]),
        ),
      ),
    );
  }
  if (missing.length > 0)
    section.append(
      el('p', {
        class: 'help',
        text: `Plots named in ${suite.suite}.json without their SVG in the build: ${missing.join(', ')}`,
      }),
    );
  for (const [name, rows] of groupBySection(suite.rows)) {
    if (name !== '') section.append(el('h3', { text: name }));
    section.append(el('div', { class: 'table-wrap' }, [table(rows)]));
  }
  return section;
}
