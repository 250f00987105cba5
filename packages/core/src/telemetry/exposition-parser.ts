// A strict parser of the Prometheus text exposition format 0.0.4, for tests of every exporter (core's text, the
// server's /metrics). Where Prometheus would reject or misread a scrape it throws, naming the line: a malformed
// sample or label, a TYPE or HELP given twice or after the family's samples, a family whose samples are not
// together, a series given twice, histogram buckets that are not cumulative or whose +Inf differs from _count.
// Not exported from the package: it is test tooling.

/** Metric types the format knows. */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/** One sample line. */
export interface Sample {
  /** The sample's own name (a histogram's `_bucket`, `_sum`, `_count` included). */
  readonly name: string;
  /** Its labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** Its value (NaN and infinities allowed). */
  readonly value: number;
}

/** One metric family. */
export interface Family {
  /** Family name. */
  readonly name: string;
  /** Its TYPE ('untyped' when none was given). */
  readonly type: MetricType;
  /** Its HELP text ('' when none was given). */
  readonly help: string;
  /** Its samples in order. */
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function fail(line: number, text: string, why: string): never {
  throw new Error(`exposition line ${line} (${JSON.stringify(text.slice(0, 120))}): ${why}`);
}

function parseValue(raw: string, line: number, text: string): number {
  if (raw === '+Inf' || raw === 'Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (raw === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) fail(line, text, `"${raw}" is not a number`);
  return Number(raw);
}

/** Parses `{a="x",b="y"}` starting at `at` (the brace); returns the labels and the index after the closing brace. */
function parseLabels(text: string, at: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0) fail(line, text, 'label without "="');
    const name = text.slice(i, eq).trim();
    if (!LABEL_NAME.test(name)) fail(line, text, `bad label name "${name}"`);
    if (name in labels) fail(line, text, `label "${name}" given twice`);
    if (text[eq + 1] !== '"') fail(line, text, `label "${name}" value is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] !== '\\') value += text[j];
      else {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail(line, text, `bad escape "\\${next ?? ''}" in label "${name}"`);
      }
    }
    if (j >= text.length) fail(line, text, `label "${name}" value is not closed`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') fail(line, text, `expected "," or "}" after label "${name}"`);
  }
}

/** The family a sample name belongs to, given the declared types. */
function familyOf(sample: string, types: ReadonlyMap<string, MetricType>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const base = sample.slice(0, -suffix.length);
    const type = types.get(base);
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return sample;
}

/** Parses a whole exposition into its families (in order of appearance); throws on anything malformed. */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const types = new Map<string, MetricType>();
  const helps = new Map<string, string>();
  const series = new Set<string>();
  const closed = new Set<string>();
  let current: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw);
      if (m === null) return; // a plain comment
      const [, kind, name = '', rest = ''] = m;
      if (!NAME.test(name)) fail(line, raw, `bad metric name "${name}"`);
      if (families.has(name) && families.get(name)?.samples.length !== 0)
        fail(line, raw, `${kind ?? ''} for ${name} after its samples`);
      if (kind === 'TYPE') {
        if (types.has(name)) fail(line, raw, `TYPE of ${name} given twice`);
        if (!TYPES.has(rest.trim())) fail(line, raw, `unknown type "${rest}"`);
        types.set(
          name,
          rest.trim() === 'counter'
            ? 'counter'
            : rest.trim() === 'gauge'
              ? 'gauge'
              : rest.trim() === 'histogram'
                ? 'histogram'
                : rest.trim() === 'summary'
                  ? 'summary'
                  : 'untyped',
        );
      } else {
        if (helps.has(name)) fail(line, raw, `HELP of ${name} given twice`);
        helps.set(name, rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\'));
      }
      return;
    }
    const nameEnd = raw.search(/[{ ]/);
    if (nameEnd <= 0) fail(line, raw, 'not a sample');
    const name = raw.slice(0, nameEnd);
    if (!NAME.test(name)) fail(line, raw, `bad metric name "${name}"`);
    let labels: Record<string, string> = {};
    let rest = raw.slice(nameEnd);
    if (raw[nameEnd] === '{') {
      const parsed = parseLabels(raw, nameEnd, line);
      labels = parsed.labels;
      rest = raw.slice(parsed.end);
    }
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === '')
      fail(line, raw, 'expected a value and an optional timestamp');
    const value = parseValue(parts[0] ?? '', line, raw);
    const family = familyOf(name, types);
    if (family !== current) {
      if (current !== undefined) closed.add(current);
      if (closed.has(family)) fail(line, raw, `samples of ${family} are not together`);
      current = family;
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (series.has(key)) fail(line, raw, 'the same series twice');
    series.add(key);
    let entry = families.get(family);
    if (entry === undefined) {
      entry = { name: family, type: types.get(family) ?? 'untyped', help: helps.get(family) ?? '', samples: [] };
      families.set(family, entry);
    }
    entry.samples.push({ name, labels, value });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** Buckets per label set cumulative in `le`, ending in +Inf equal to _count. */
function checkHistogram(family: Family): void {
  const groups = new Map<string, { le: number; value: number }[]>();
  const counts = new Map<string, number>();
  const keyOf = (labels: Readonly<Record<string, string>>): string =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== 'le')
        .sort(),
    );
  for (const s of family.samples) {
    const key = keyOf(s.labels);
    if (s.name.endsWith('_count')) counts.set(key, s.value);
    if (!s.name.endsWith('_bucket')) continue;
    const le = s.labels['le'];
    if (le === undefined) throw new Error(`${family.name}: a bucket without "le"`);
    groups.set(key, [...(groups.get(key) ?? []), { le: le === '+Inf' ? Infinity : Number(le), value: s.value }]);
  }
  for (const [key, buckets] of groups) {
    const sorted = [...buckets].sort((a, b) => a.le - b.le);
    for (let i = 1; i < sorted.length; i++)
      if ((sorted[i]?.value ?? 0) < (sorted[i - 1]?.value ?? 0))
        throw new Error(`${family.name}${key}: buckets are not cumulative`);
    const inf = sorted.at(-1);
    if (inf === undefined || inf.le !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (counts.get(key) !== inf.value)
      throw new Error(
        `${family.name}${key}: +Inf bucket ${inf.value} differs from _count ${counts.get(key) ?? 'missing'}`,
      );
  }
}

/**
 * Naming problems by Prometheus' conventions: a counter's name ends in `_total` and nothing else's does; a unit
 * comes before `_total` (`_bytes_total`, `_seconds_total`); base units only (seconds, bytes: no `_ms`, no
 * `milliseconds`); every family has HELP and TYPE.
 */
export function namingProblems(families: ReadonlyMap<string, Family>): string[] {
  const problems: string[] = [];
  for (const f of families.values()) {
    if (f.type === 'counter' && !f.name.endsWith('_total')) problems.push(`${f.name}: a counter's name ends in _total`);
    if (f.type !== 'counter' && f.name.endsWith('_total')) problems.push(`${f.name}: only counters end in _total`);
    const unit = /_(bytes|seconds)_/.exec(`${f.name}_`)?.[1];
    if (f.type === 'counter' && unit !== undefined && !f.name.endsWith(`_${unit}_total`))
      problems.push(`${f.name}: the unit (${unit}) goes right before _total`);
    if (/(_ms|_milliseconds)(_|$)/.test(f.name)) problems.push(`${f.name}: use base units (seconds)`);
    if (f.type === 'untyped') problems.push(`${f.name}: no TYPE`);
    if (f.help === '') problems.push(`${f.name}: no HELP`);
  }
  return problems;
}
