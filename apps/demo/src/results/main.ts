// results.html: the bench suites copied into data/bench/ at build time, or "no results yet".
import { fetchJson, dataUrl } from '../data/fetch-data.ts';
import { byId, el } from '../dom.ts';
import { showError } from '../sentences.ts';
import { parseBenchIndex, parseBenchSuite } from './bench-format.ts';
import { renderSuite } from './render.ts';

const status = byId('results-status', HTMLParagraphElement);

async function show(): Promise<void> {
  const index = parseBenchIndex(await fetchJson('bench/index.json'));
  const main = byId('results', HTMLElement);
  const toc = byId('results-toc', HTMLUListElement);
  if (index.suites.length === 0) {
    status.dataset['state'] = 'empty';
    status.replaceChildren(
      'No results yet: run ',
      el('code', { text: 'npm run bench -- all' }),
      ' (or one suite), then rebuild the demo.',
    );
    return;
  }
  const problems: string[] = [];
  const shown = new Set<string>();
  for (const entry of index.suites) {
    const parsed = parseBenchSuite(await fetchJson(`bench/${entry.file}`));
    if (!parsed.ok) {
      problems.push(`${entry.file}: ${parsed.reason}`);
      continue;
    }
    main.append(renderSuite(parsed.suite, index.plots, (file) => dataUrl(`bench/${file}`).href));
    for (const file of index.plots) if (file.startsWith(`${parsed.suite.suite}-`)) shown.add(file);
    toc.append(
      el('li', {}, [
        el('a', { href: `#suite-${parsed.suite.suite}`, text: parsed.suite.suite }),
        ` (${new Date(parsed.suite.date).toLocaleString('en')})`,
      ]),
    );
  }
  const otherPlots = index.plots.filter((p) => !shown.has(p));
  if (otherPlots.length > 0) {
    main.append(
      el('section', { id: 'other-plots' }, [
        el('h2', { text: 'Other plots' }),
        ...otherPlots.map((file) => el('img', { src: dataUrl(`bench/${file}`).href, alt: file, class: 'plot' })),
      ]),
    );
  }
  status.dataset['state'] = 'ready';
  status.textContent = `${index.suites.length - problems.length} suites${index.plots.length > 0 ? `, ${index.plots.length} plots` : ''}${problems.length > 0 ? `; skipped: ${problems.join('; ')}` : ''}.`;
}

show().catch((error: unknown) => {
  status.dataset['state'] = 'error';
  status.textContent = `Could not load the results. ${showError(error).sentence}`;
});
