// Applies one mutant from a Stryker JSON report to the source tree, runs the named vitest files against it with the
// mutation config, and restores the file: the by-hand check behind each "killed by" or "equivalent" line in
// docs/mutation.md, without a whole Stryker run.
//
//   node scripts/check-mutant.mjs REPORT.json ID [ID...] -- TEST_FILE [TEST_FILE...] [vitest args]
//   node scripts/check-mutant.mjs REPORT.json --list [FILE_SUBSTRING]     the survivors, one per line
//
// Prints one line per mutant: KILLED (a test failed), SURVIVED (all passed), HUNG (no end within
// CHECK_MUTANT_TIMEOUT_S seconds, default 300: the mutant looped or never settled) or ERROR (vitest could not run).
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';

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
function describeMutant(m) {
  const line = m.source.split('\n')[m.location.start.line - 1].trim();
  return `${m.id} ${m.file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)} | ${line}`;
}

if (rest[0] === '--list') {
  for (const m of mutants)
    if (m.status === 'Survived' && m.file.includes(rest[1] ?? '')) console.log(describeMutant(m));
  process.exit(0);
}

const dash = rest.indexOf('--');
if (dash < 1 || dash === rest.length - 1) {
  console.error('check-mutant: give mutant ids, then --, then the test files to run');
  process.exit(2);
}
const ids = rest.slice(0, dash);
const vitestArgs = rest.slice(dash + 1);
const timeoutMs = Number(process.env['CHECK_MUTANT_TIMEOUT_S'] ?? 300) * 1000;

let running; // the vitest run in flight, stopped with the source restored when this script is interrupted

/** Runs vitest in its own process group, so that a mutant that loops can be stopped with every worker vitest started. */
function runVitest(extraArgs) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        'node_modules/vitest/vitest.mjs',
        'run',
        '--config',
        'vitest.mutation.config.mjs',
        '--reporter=dot',
        ...extraArgs,
      ],
      { detached: true, env: { ...process.env, CI: '', NO_COLOR: '1' } },
    );
    running = child;
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      running = undefined;
      resolve({ status, out, hung });
    });
  });
}

/** The tests vitest reports as failed ("FAIL  file > suite > test"; vitest runs with NO_COLOR). */
function failedTests(out) {
  return [...new Set(out.split('\n').filter((l) => /^\s*FAIL\s/.test(l) && l.includes(' > ')))].map((l) =>
    l.replace(/^\s*FAIL\s+/, '').trim(),
  );
}

let exitCode = 0;
let restore = () => {};
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    if (running !== undefined) process.kill(-running.pid, 'SIGKILL');
    restore();
    process.exit(130);
  });
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
  restore = () => writeFileSync(mutant.file, original);
  try {
    writeFileSync(mutant.file, mutate(mutant));
    const run = await runVitest(vitestArgs);
    const verdict = run.hung
      ? 'HUNG'
      : run.status === 0
        ? 'SURVIVED'
        : /Tests?\s+.*failed/.test(run.out)
          ? 'KILLED'
          : 'ERROR';
    console.log(`${verdict} ${describeMutant(mutant)}`);
    if (verdict === 'ERROR') console.log(run.out.split('\n').slice(-15).join('\n'));
    if (verdict === 'KILLED') for (const name of failedTests(run.out).slice(0, 3)) console.log(`  failed: ${name}`);
  } finally {
    restore();
  }
}
process.exit(exitCode);
