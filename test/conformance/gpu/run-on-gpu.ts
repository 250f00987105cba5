// The GPU correctness gate's command line: every conformance case on each GPU backend (gate.ts), on the same seeded
// inputs as `npm test`. Exits 1 on any failure: a wrong element, a throw from a case the backend says it supports, a
// backend that does not start, or a failed device check (gpu-checks.ts). Runs without vitest (node_modules does not travel
// to the GPU machine): bundle it (bundle.sh), then there
//   node .gpu-bundle/conformance-gpu.mjs --rocm-addon packages/rocm/build/nvidia/tandem_rocm.node
// or, where node_modules is present (apps/bench/scripts/gpu-bench.sh), node -C @tandem/source --import tsx on this file.
// Flags: --swiftshader (WebGPU on SwiftShader: a rehearsal without a GPU, with --rocm-addon the emulated build);
// --only webgpu|rocm; --quick (cases of at most 65,536 input elements, e.g. under compute-sanitizer);
// --cases <regex> (case names). Prints one line per backend and every failure. --help lists the flags; an unknown
// one is an error (exit 2).
import path from 'node:path';
import { numel, opInputs, type CapableBackend } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';
import { parseCommandLine, refuseArgs } from '../../../apps/bench/src/command-line.ts';
import { CASES, caseRng, type ConformanceCase } from '../cases.ts';
import { runGate } from './gate.ts';

const USAGE = {
  command: 'node -C @tandem/source --import tsx test/conformance/gpu/run-on-gpu.ts [options]',
  summary:
    'The GPU correctness gate: every conformance case on each GPU backend, on the inputs of npm test. Exits 1 on any\n' +
    'failure. Bundled: node .gpu-bundle/conformance-gpu.mjs [options] (test/conformance/gpu/bundle.sh).',
};
const FLAGS = {
  'rocm-addon': { type: 'string', help: 'the HIP build to check (required unless --only webgpu)' },
  only: { type: 'string', help: 'webgpu or rocm (default both)' },
  swiftshader: { type: 'boolean', help: 'WebGPU on SwiftShader: a rehearsal without a GPU' },
  quick: { type: 'boolean', help: 'only cases of at most 65,536 input elements (e.g. under compute-sanitizer)' },
  cases: { type: 'string', help: 'a regular expression: only the cases whose names match' },
} as const;
const args = parseCommandLine(USAGE, FLAGS);
const only = args.text('only');
if (only !== undefined && only !== 'webgpu' && only !== 'rocm')
  refuseArgs(`--only ${only}: must be webgpu or rocm`, USAGE, FLAGS);
const addon = args.text('rocm-addon');
if (only !== 'webgpu' && addon === undefined)
  refuseArgs('--rocm-addon <path> is required (or --only webgpu)', USAGE, FLAGS);
const casePattern = regexArg('--cases', args.text('cases'));

/** A regular expression flag, undefined when absent; exits 2 naming it when it does not compile. */
function regexArg(name: string, raw: string | undefined): RegExp | undefined {
  try {
    return raw === undefined ? undefined : new RegExp(raw);
  } catch (error) {
    refuseArgs(`${name} ${raw}: ${error instanceof Error ? error.message : String(error)}`, USAGE, FLAGS);
  }
}

/** The cases this run checks (--quick, --cases). */
function selectedCases(): ConformanceCase[] {
  const byName = casePattern === undefined ? CASES : CASES.filter((c) => casePattern.test(c.name));
  if (!args.on('quick')) return [...byName];
  return byName.filter(
    (c) => opInputs(c.build(caseRng(c.name))).reduce((sum, { tensor }) => sum + numel(tensor.shape), 0) <= 65_536,
  );
}

if (args.on('swiftshader')) {
  const software = useSwiftShader();
  if (!software.ok) throw new Error(software.reason);
}
const backends: CapableBackend[] = [];
if (only === undefined || only === 'webgpu') backends.push(createNodeWebGpuBackend());
if (only !== 'webgpu' && addon !== undefined) backends.push(new RocmBackend({ addonPath: path.resolve(addon) }));
const failures = await runGate(backends, selectedCases());
for (const f of failures) console.log(`FAIL ${f.slice(0, 400)}`);
console.log(failures.length === 0 ? 'GPU conformance: PASS' : `GPU conformance: FAIL (${failures.length})`);
process.exitCode = failures.length === 0 ? 0 : 1;
