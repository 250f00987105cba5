// The bench JSON files (apps/bench/src/report.ts writeSuite) as the results page reads them (browser-safe).

/** One measured row: column name -> value. */
export type BenchRow = Readonly<Record<string, string | number | boolean>>;

/** One suite's results file. */
export interface BenchSuite {
  /** Suite name, e.g. 'memory'. */
  readonly suite: string;
  /** When it ran (ISO date). */
  readonly date: string;
  /** The machine it ran on (node, cpu, cores, ...). */
  readonly machine: Readonly<Record<string, string | number>>;
  /** Every measurement. */
  readonly rows: readonly BenchRow[];
  /** Targets met or missed, notes. */
  readonly verdicts: readonly string[];
  /** The suite's charts (id and title; each drawn to <suite>-<id>.svg); empty when the file has none. */
  readonly plots: readonly BenchPlot[];
}

/** A chart named in a results file. */
export interface BenchPlot {
  /** Chart id: the SVG file is <suite>-<id>.svg. */
  readonly id: string;
  /** Chart title. */
  readonly title: string;
}

/** bench/index.json: the suites copied into the build and the plots next to them. */
export interface BenchIndex {
  /** Result files (in data/bench/), with their suite names. */
  readonly suites: readonly { readonly file: string; readonly suite: string; readonly date: string }[];
  /** SVG plots (in data/bench/). */
  readonly plots: readonly string[];
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function scalarRecord(v: unknown): Record<string, string | number | boolean> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(v)) {
    if (value === null) continue;
    if (!isScalar(value)) return undefined;
    out[key] = value;
  }
  return out;
}

/** A results file, or why it is not one (other JSON such as traces also lives in bench-results/). */
export function parseBenchSuite(value: unknown): { ok: true; suite: BenchSuite } | { ok: false; reason: string } {
  if (typeof value !== 'object' || value === null) return { ok: false, reason: 'not an object' };
  const suite: unknown = Reflect.get(value, 'suite');
  const date: unknown = Reflect.get(value, 'date');
  const rows: unknown = Reflect.get(value, 'rows');
  const verdicts: unknown = Reflect.get(value, 'verdicts') ?? [];
  if (typeof suite !== 'string' || suite.length === 0) return { ok: false, reason: 'no "suite" name' };
  if (typeof date !== 'string') return { ok: false, reason: 'no "date"' };
  if (!Array.isArray(rows)) return { ok: false, reason: 'no "rows" array' };
  const parsedRows: BenchRow[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = scalarRecord(rows[i]);
    if (row === undefined) return { ok: false, reason: `rows[${i}] is not an object of numbers, strings and booleans` };
    parsedRows.push(row);
  }
  if (!Array.isArray(verdicts) || !verdicts.every((v): v is string => typeof v === 'string'))
    return { ok: false, reason: '"verdicts" is not an array of strings' };
  const machineRecord = scalarRecord(Reflect.get(value, 'machine')) ?? {};
  const machine: Record<string, string | number> = {};
  for (const [key, v] of Object.entries(machineRecord)) machine[key] = typeof v === 'boolean' ? String(v) : v;
  return {
    ok: true,
    suite: { suite, date, machine, rows: parsedRows, verdicts, plots: plotsOf(Reflect.get(value, 'plots')) },
  };
}

/** The id and title of each chart in a results file's `plots` (entries without a string id are left out). */
function plotsOf(value: unknown): BenchPlot[] {
  if (!Array.isArray(value)) return [];
  const plots: BenchPlot[] = [];
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null) continue;
    const id: unknown = Reflect.get(entry, 'id');
    const title: unknown = Reflect.get(entry, 'title');
    if (typeof id === 'string' && id !== '') plots.push({ id, title: typeof title === 'string' ? title : id });
  }
  return plots;
}

/** The SVG files of a suite: those its `plots` name, else (older files) every `<suite>-*.svg`; missing ones apart. */
export function suitePlotFiles(
  suite: BenchSuite,
  available: readonly string[],
): { shown: { file: string; title: string }[]; missing: string[] } {
  if (suite.plots.length === 0)
    return {
      shown: available
        .filter((f) => f.startsWith(`${suite.suite}-`) && f.endsWith('.svg'))
        .map((file) => ({ file, title: file })),
      missing: [],
    };
  const named = suite.plots.map((p) => ({ file: `${suite.suite}-${p.id}.svg`, title: p.title }));
  const have = new Set(available);
  return {
    shown: named.filter((p) => have.has(p.file)),
    missing: named.filter((p) => !have.has(p.file)).map((p) => p.file),
  };
}

/** Checks bench/index.json; throws an Error naming what is wrong. */
export function parseBenchIndex(value: unknown): BenchIndex {
  if (typeof value !== 'object' || value === null) throw new Error('bench/index.json is not an object');
  const suites: unknown = Reflect.get(value, 'suites');
  const plots: unknown = Reflect.get(value, 'plots');
  if (!Array.isArray(suites) || !Array.isArray(plots))
    throw new Error('bench/index.json needs "suites" and "plots" arrays');
  const list: { file: string; suite: string; date: string }[] = [];
  for (const entry of suites) {
    const file: unknown = typeof entry === 'object' && entry !== null ? Reflect.get(entry, 'file') : undefined;
    const suite: unknown = typeof entry === 'object' && entry !== null ? Reflect.get(entry, 'suite') : undefined;
    const date: unknown = typeof entry === 'object' && entry !== null ? Reflect.get(entry, 'date') : undefined;
    if (typeof file !== 'string' || typeof suite !== 'string' || typeof date !== 'string')
      throw new Error('bench/index.json: each suite needs file, suite and date strings');
    list.push({ file, suite, date });
  }
  if (!plots.every((p): p is string => typeof p === 'string'))
    throw new Error('bench/index.json: plots must be file names');
  return { suites: list, plots };
}
