// npm run test:stress (part): 10,000 mixed ops with 5% faults on the real backends; prints
// "faults injected / results wrong / unhandled: N / 0 / 0" and exits 1 if anything was wrong or a fallback went
// unexplained in the telemetry. --ops N (or TANDEM_STRESS_OPS) changes the count.
import { needBackend } from '../support/backends.ts';
import { runMixedFaults } from '../reliability/mixed-faults.ts';
import { numberArg, parseCommandLine } from '../../apps/bench/src/command-line.ts';

const args = parseCommandLine(
  {
    command: 'node -C @tandem/source --import tsx test/stress/mixed-faults.ts [--ops N]',
    summary: 'Mixed ops with 5% injected faults on the real backends.',
  },
  { ops: { type: 'string', help: 'ops to run (default 10000; $TANDEM_STRESS_OPS)' } },
);
const ops = numberArg('--ops', args.text('ops') ?? process.env['TANDEM_STRESS_OPS'], 10_000, 1, 100_000_000);
if (!needBackend('webgpu')) process.exit(0);

const started = performance.now();
const report = await runMixedFaults(ops, 0.05, 11, (done) => process.stdout.write(`\r  ${done}/${ops} ops`));
const seconds = (performance.now() - started) / 1000;
const { failed, withCause, explained, unexplained } = report.fallbacks;
console.log(
  `\nmixed faults: ${report.ops} ops (${report.opKinds.length} op kinds) in ${seconds.toFixed(1)} s on ${report.backends.join(', ')}`,
);
console.log(`answered by: ${JSON.stringify(report.answeredBy)}`);
console.log(
  `faults injected / results wrong / unhandled: ${report.injected} / ${report.wrong + report.rejected} / ${report.unhandled}`,
);
console.log(
  `failed attempts in telemetry: ${failed} (with their cause: ${withCause}; named by the fallback that followed: ${explained}; events dropped: ${report.droppedEvents})`,
);
for (const w of report.wrongExamples) console.log(`  wrong: ${w}`);
for (const u of unexplained) console.log(`  unexplained failure: ${u}`);
const ok =
  report.wrong + report.rejected + report.unhandled === 0 &&
  withCause === failed &&
  explained === failed &&
  report.droppedEvents === 0;
process.exitCode = ok ? 0 : 1;
