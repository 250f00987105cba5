#!/usr/bin/env node
// Checks every native kernel against CPU references and benchmarks the headline ops, on a real device (or the
// CPU emulation: build.mjs --variant emulated). Plain Node: loads only the .node file, no npm packages, so it
// runs on the GPU machine with the GPU kit's Node. --bench-small shrinks the benchmarks (for the emulation);
// --bench-child --bench-only quantized runs just the mat-vec timings in this process (for a profiler).
//
//   node packages/rocm/scripts/gpu-check.mjs [--addon PATH] [--out DIR] [--quick] [--bench] [--no-check]
//                                            [--group NAME[,NAME...]|all] [--in-process]
//
// Each group of cases runs in its own child process, so a kernel fault (which poisons the whole context) costs
// only its group. --group runs one group in this process; --in-process runs all groups here (for
// compute-sanitizer). Results: a summary on stdout and DIR/gpu-check.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBenchmarks } from './gpu-check/bench.mjs';
import { caseGroups } from './gpu-check/cases.mjs';
import { errorChecks, runCase } from './gpu-check/runner.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const addonPath = resolve(option('--addon', process.env.TANDEM_ROCM_ADDON ?? join(here, '../build/nvidia/tandem_rocm.node')));
const outDir = option('--out', process.env.OUT ?? '.');
const quick = flag('--quick');

function openDevice() {
  const addon = createRequire(import.meta.url)(addonPath);
  const list = addon.devices();
  if (list.count === 0) throw new Error(`no device: ${list.error} (${list.message})`);
  return { addon, info: list.devices[0], device: new addon.Device(0) };
}

async function runGroups(names, emit) {
  const { device } = openDevice();
  const groups = caseGroups(quick);
  for (const name of names) {
    if (name === 'errors') {
      for (const r of await errorChecks(device)) emit({ group: name, ...r });
      continue;
    }
    for (const c of groups[name]()) emit({ group: name, ...(await runCase(device, c)) });
  }
  device.close();
}

function summarize(results) {
  const failed = results.filter((r) => !r.ok);
  const lines = [`${results.length - failed.length}/${results.length} checks passed`];
  for (const f of failed) lines.push(`FAIL [${f.group}] ${f.name}: ${f.error ?? JSON.stringify(f.checks)}`);
  return lines.join('\n');
}

async function main() {
  const group = option('--group', undefined);
  if (group !== undefined) {
    // child mode: one JSON line per result
    const names = group === 'all' ? [...Object.keys(caseGroups(quick)), 'errors'] : group.split(',');
    await runGroups(names, (r) => console.log(`RESULT ${JSON.stringify(r)}`));
    return;
  }
  if (flag('--bench-child')) {
    const { device } = openDevice();
    const results = await runBenchmarks(device, (line) => console.log(line), flag('--bench-small'), option('--bench-only', undefined));
    console.log(`BENCH ${JSON.stringify(results)}`);
    device.close();
    return;
  }

  const report = { addon: addonPath, startedAt: new Date().toISOString() };
  try {
    const { addon, info, device } = openDevice();
    report.platform = addon.platform;
    report.device = info;
    device.close();
  } catch (error) {
    report.error = String(error?.message ?? error);
    console.log(`cannot open a device: ${report.error}`);
  }
  const childArgs = (extra) => [fileURLToPath(import.meta.url), '--addon', addonPath, ...(quick ? ['--quick'] : []), ...(flag('--bench-small') ? ['--bench-small'] : []), ...extra];
  const results = [];
  if (report.error === undefined && !flag('--no-check')) {
    const names = [...Object.keys(caseGroups(quick)), 'errors'];
    const inProcess = flag('--in-process');
    for (const name of inProcess ? ['all'] : names) {
      const child = spawnSync(process.execPath, childArgs(['--group', name]), { encoding: 'utf8', maxBuffer: 1 << 28 });
      const got = child.stdout
        .split('\n')
        .filter((l) => l.startsWith('RESULT '))
        .map((l) => JSON.parse(l.slice(7)));
      results.push(...got);
      if (child.status !== 0) results.push({ group: name, name: 'process', ok: false, error: `exit ${child.status} ${child.signal ?? ''}: ${(child.stderr ?? '').slice(-2000)}` });
    }
    report.checks = results;
    console.log(summarize(results));
  }
  if (report.error === undefined && flag('--bench')) {
    const child = spawnSync(process.execPath, childArgs(['--bench-child']), { encoding: 'utf8', maxBuffer: 1 << 28 });
    for (const l of child.stdout.split('\n')) if (l !== '' && !l.startsWith('BENCH ')) console.log(l);
    const line = child.stdout.split('\n').find((l) => l.startsWith('BENCH '));
    report.bench = line === undefined ? { error: `exit ${child.status}: ${(child.stderr ?? '').slice(-2000)}` } : JSON.parse(line.slice(6));
    if (line === undefined) console.log(`bench failed: ${report.bench.error}`);
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'gpu-check.json'), JSON.stringify(report, null, 1));
  process.exitCode = results.some((r) => !r.ok) ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
