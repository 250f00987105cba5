// npm run test:stress (part): 10,000 mixed ops with 5% faults on the real backends; prints
// "faults injected / results wrong / unhandled: N / 0 / 0" and exits 1 if anything was wrong.
import { runMixedFaults } from '../reliability/mixed-faults.ts';

const ops = Number(process.env['TANDEM_STRESS_OPS'] ?? 10_000);
const started = performance.now();
const report = await runMixedFaults(ops, 0.05, 11, (done) => process.stdout.write(`\r  ${done}/${ops} ops`));
const seconds = (performance.now() - started) / 1000;
console.log(`\nmixed faults: ${report.ops} ops in ${seconds.toFixed(1)} s on ${report.backends.join(', ')}`);
console.log(`faults injected / results wrong / unhandled: ${report.injected} / ${report.wrong + report.rejected} / ${report.unhandled}`);
console.log(`failed attempts in telemetry: ${report.failedEvents} (with their cause: ${report.failedEventsWithCause})`);
for (const w of report.wrongExamples) console.log(`  wrong: ${w}`);
if (report.wrong + report.rejected + report.unhandled > 0 || report.failedEventsWithCause !== report.failedEvents) process.exitCode = 1;
