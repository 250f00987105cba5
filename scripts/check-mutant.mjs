// Applies one mutant from a Stryker JSON report to the source tree, runs the named vitest files against it with the
// mutation config, and restores the file: the by-hand check behind each "killed by" or "equivalent" line in
// docs/mutation.md, without a whole Stryker run.
//
//   node scripts/check-mutant.mjs REPORT.json ID [ID...] -- TEST_FILE [TEST_FILE...] [vitest args]
//   node scripts/check-mutant.mjs REPORT.json --list [FILE_SUBSTRING]     the survivors, one per line
//
// Prints one line per mutant: KILLED (a test failed), SURVIVED (all passed) or ERROR (vitest could not run).
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const [reportPath, ...rest] = args;
if (reportPath === undefined || rest.length === 0) {
  console.error('usage: node scripts/check-mutant.mjs REPORT.json ID... -- TEST_FILE... | REPORT.json --list [FILE]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));

/** Every mutant in the report, with the file it belongs to. */
const mutants = Object.entries(report.files).flatMap(([file, entry]) =>
  entry.mutants.map((m) => ({ ...m, file, source: entry.source })),
);

/** The source with the mutant's replacement spliced in (Stryker's lines and columns count from 1; end is exclusive). */
function mutate(mutant) {
  const lines = mutant.source.split('\n');
  const offset = (pos) => lines.slice(0, pos.line - 1).reduce((n, l) => n + l.length + 1, 0) + pos.column - 1;
  const { start, end } = mutant.location;
  return mutant.source.slice(0, offset(start)) + mutant.replacement + mutant.source.slice(offset(end));
}

/** One line naming where a mutant is and what it changes. */
function describe(m) {
  const line = m.source.split('\n')[m.location.start.line - 1].trim();
  return `${m.id} ${m.file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)} | ${line}`;
}

if (rest[0] === '--list') {
  for (const m of mutants) if (m.status === 'Survived' && m.file.includes(rest[1] ?? '')) console.log(describe(m));
  process.exit(0);
}

const dash = rest.indexOf('--');
if (dash < 1 || dash === rest.length - 1) {
  console.error('check-mutant: give mutant ids, then --, then the test files to run');
  process.exit(2);
}
const ids = rest.slice(0, dash);
const vitestArgs = rest.slice(dash + 1);
let exitCode = 0;
for (const id of ids) {
  const mutant = mutants.find((m) => m.id === id);
  if (mutant === undefined) {
    console.error(`check-mutant: no mutant ${id} in ${reportPath}`);
    exitCode = 2;
    continue;
  }
  const original = readFileSync(mutant.file, 'utf8');
  if (original !== mutant.source) {
    console.error(`check-mutant: ${mutant.file} differs from the report's source; the mutant's place may have moved`);
    exitCode = 2;
    continue;
  }
  const restore = () => writeFileSync(mutant.file, original);
  process.once('SIGINT', () => {
    restore();
    process.exit(130);
  });
  try {
    writeFileSync(mutant.file, mutate(mutant));
    const run = spawnSync(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'vitest.mutation.config.mjs', '--reporter=dot', ...vitestArgs],
      { encoding: 'utf8', env: { ...process.env, CI: '' } },
    );
    const out = `${run.stdout}${run.stderr}`;
    const verdict = run.status === 0 ? 'SURVIVED' : /Tests?\s+.*failed/.test(out) ? 'KILLED' : 'ERROR';
    console.log(`${verdict} ${describe(mutant)}`);
    if (verdict === 'ERROR') console.log(out.split('\n').slice(-15).join('\n'));
  } finally {
    restore();
  }
}
process.exit(exitCode);
