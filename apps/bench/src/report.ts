// Writes a suite's results: JSON (machine, versions, every measurement) and a markdown table, in bench-results/.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Chart } from './plots/plot.ts';
import { renderSvg } from './plots/svg.ts';

export type {
  BarChart,
  BarSeries,
  Chart,
  LineChart,
  PlotCeiling,
  PlotMarker,
  PlotPoint,
  PlotSeries,
} from './plots/plot.ts';

/** One row of results: a name and its measured fields. */
export type Row = Readonly<Record<string, string | number | boolean>>;

/** How a suite was asked to run. */
export interface SuiteOptions {
  /** Running on the GPU machine (`--gpu`, through ../shared/gpu-kit): include the GPU backends and ceilings. */
  readonly gpu: boolean;
}

/** What a suite produces. */
export interface SuiteResult {
  /** Suite name. */
  readonly suite: string;
  /** Rows for the table and JSON. */
  readonly rows: readonly Row[];
  /** Lines to print after the table (targets met or not, notes). */
  readonly verdicts: readonly string[];
  /** Charts, each drawn to <suite>-<id>.svg next to the JSON (and kept in the JSON). */
  readonly plots?: readonly Chart[];
}

/** Where results go (bench-results/ at the repository root, or $TANDEM_BENCH_OUT). */
export function resultsDir(): string {
  return process.env['TANDEM_BENCH_OUT'] ?? path.resolve(import.meta.dirname, '../../../bench-results');
}

/** The machine, for the JSON header. */
export function machine(): Record<string, string | number> {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  };
}

/** A markdown table of rows (columns: every key any row has, in first-seen order; blank where a row lacks one). */
export function markdownTable(rows: readonly Row[]): string {
  if (rows.length === 0) return '(no rows)';
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown): string => (v === undefined ? '' : typeof v === 'number' ? formatNumber(v) : String(v));
  return [
    `| ${cols.join(' | ')} |`,
    `| ${cols.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`),
  ].join('\n');
}

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(1) : a >= 1 ? v.toFixed(3) : v.toPrecision(3);
}

/** The SVG file name of a suite's chart; throws on an id that is not letters, digits and '-'. */
export function plotFileName(suite: string, id: string): string {
  if (!/^[A-Za-z0-9-]+$/.test(id))
    throw new Error(`plot id '${id}' of suite '${suite}' must be letters, digits and '-'`);
  return `${suite}-${id}.svg`;
}

/** Writes <suite>.json, <suite>.md and one <suite>-<id>.svg per plot, and prints the table and verdicts. */
export async function writeSuite(result: SuiteResult): Promise<void> {
  const dir = resultsDir();
  await mkdir(dir, { recursive: true });
  const plots = result.plots ?? [];
  const files = plots.map((p) => plotFileName(result.suite, p.id));
  const json = {
    suite: result.suite,
    date: new Date().toISOString(),
    machine: machine(),
    rows: result.rows,
    verdicts: result.verdicts,
    ...(plots.length > 0 ? { plots } : {}),
  };
  await writeFile(path.join(dir, `${result.suite}.json`), `${JSON.stringify(json, null, 2)}\n`);
  for (const [i, plot] of plots.entries()) await writeFile(path.join(dir, files[i] ?? ''), renderSvg(plot));
  const images = files.map((f, i) => `![${plots[i]?.title ?? f}](${f})`).join('\n\n');
  const md = `# ${result.suite}\n\n${markdownTable(result.rows)}\n\n${result.verdicts.map((v) => `- ${v}`).join('\n')}\n${images === '' ? '' : `\n${images}\n`}`;
  await writeFile(path.join(dir, `${result.suite}.md`), md);
  console.log(`\n${md}`);
  console.log(
    `wrote ${path.join(dir, `${result.suite}.json`)}, .md${files.length > 0 ? ` and ${files.join(', ')}` : ''}`,
  );
}

/** A one-line progress bar on stderr (TTY only, so logs stay clean). */
export function progress(label: string, done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const width = 30;
  const filled = Math.round((done / Math.max(1, total)) * width);
  process.stderr.write(
    `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done >= total ? '\n' : ''}`,
  );
}
