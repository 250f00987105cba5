// The GPU correctness gate's command line: every conformance case on each GPU backend (gate.ts), on the same seeded
// inputs as `npm test`. Exits 1 on any failure: a wrong element, a throw from a case the backend says it supports, a
// backend that does not start, or a failed device check (gpu-checks.ts). Runs without vitest (node_modules does not travel
// to the GPU machine): bundle it (bundle.sh), then there
//   node .gpu-bundle/conformance-gpu.mjs --rocm-addon packages/rocm/build/nvidia/tandem_rocm.node
// or, where node_modules is present (apps/bench/scripts/gpu-bench.sh), node -C @tandem/source --import tsx on this file.
// Flags: --swiftshader (WebGPU on SwiftShader: a rehearsal without a GPU, with --rocm-addon the emulated build);
// --only webgpu|rocm; --quick (cases of at most 65,536 input elements, e.g. under compute-sanitizer);
// --cases <regex> (case names). Prints one line per backend and every failure.
import path from 'node:path';
import { numel, opInputs, type CapableBackend } from '@tandem/core';
import { RocmBackend } from '@tandem/rocm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';
import { CASES, caseRng, type ConformanceCase } from '../cases.ts';
import { runGate } from './gate.ts';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The cases this run checks (--quick, --cases). */
function selectedCases(): ConformanceCase[] {
  const pattern = flag('cases');
  const byName = pattern === undefined ? CASES : CASES.filter((c) => new RegExp(pattern).test(c.name));
  if (!process.argv.includes('--quick')) return [...byName];
  return byName.filter(
    (c) => opInputs(c.build(caseRng(c.name))).reduce((sum, { tensor }) => sum + numel(tensor.shape), 0) <= 65_536,
  );
}

if (process.argv.includes('--swiftshader')) {
  const software = useSwiftShader();
  if (!software.ok) throw new Error(software.reason);
}
const only = flag('only');
const addon = flag('rocm-addon');
const backends: CapableBackend[] = [];
if (only === undefined || only === 'webgpu') backends.push(createNodeWebGpuBackend());
if (only === undefined || only === 'rocm') {
  if (addon === undefined) throw new Error('--rocm-addon <path> is required (or --only webgpu)');
  backends.push(new RocmBackend({ addonPath: path.resolve(addon) }));
}
const failures = await runGate(backends, selectedCases());
for (const f of failures) console.log(`FAIL ${f.slice(0, 400)}`);
console.log(failures.length === 0 ? 'GPU conformance: PASS' : `GPU conformance: FAIL (${failures.length})`);
process.exitCode = failures.length === 0 ? 0 : 1;
