// Writes a suite's results: JSON (machine, versions, every measurement) and a markdown table, in bench-results/.
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

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
}

/** Where results go (bench-results/ at the repository root, or $TANDEM_BENCH_OUT). */
export function resultsDir(): string {
  return process.env['TANDEM_BENCH_OUT'] ?? path.resolve(import.meta.dirname, '../../../bench-results');
}

/** The machine, for the JSON header. */
export function machine(): Record<string, string | number> {
  const cpus = os.cpus();
  return { node: process.version, platform: `${os.platform()} ${os.arch()}`, cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, memoryGiB: Math.round(os.totalmem() / 2 ** 30) };
}

/** A markdown table of rows (columns: every key any row has, in first-seen order; blank where a row lacks one). */
export function markdownTable(rows: readonly Row[]): string {
  if (rows.length === 0) return '(no rows)';
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown): string => (v === undefined ? '' : typeof v === 'number' ? formatNumber(v) : String(v));
  return [`| ${cols.join(' | ')} |`, `| ${cols.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`)].join('\n');
}

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(1) : a >= 1 ? v.toFixed(3) : v.toPrecision(3);
}

/** Writes <suite>.json and <suite>.md and prints the table and verdicts. */
export async function writeSuite(result: SuiteResult): Promise<void> {
  const dir = resultsDir();
  await mkdir(dir, { recursive: true });
  const json = { suite: result.suite, date: new Date().toISOString(), machine: machine(), rows: result.rows, verdicts: result.verdicts };
  await writeFile(path.join(dir, `${result.suite}.json`), `${JSON.stringify(json, null, 2)}\n`);
  const md = `# ${result.suite}\n\n${markdownTable(result.rows)}\n\n${result.verdicts.map((v) => `- ${v}`).join('\n')}\n`;
  await writeFile(path.join(dir, `${result.suite}.md`), md);
  console.log(`\n${md}`);
  console.log(`wrote ${path.join(dir, `${result.suite}.json`)} and .md`);
}

/** A one-line progress bar on stderr (TTY only, so logs stay clean). */
export function progress(label: string, done: number, total: number): void {
  if (!process.stderr.isTTY) return;
  const width = 30;
  const filled = Math.round((done / Math.max(1, total)) * width);
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done >= total ? '\n' : ''}`);
}
