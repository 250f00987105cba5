// The whole conformance suite through the Engine on a real GPU machine, without vitest (node_modules does not
// travel there): bundle this file (bundle.sh), then on the machine
//   node .gpu-bundle/conformance-gpu.mjs --rocm-addon packages/rocm/build/nvidia/tandem_rocm.node
// (here, a rehearsal: --swiftshader --rocm-addon packages/rocm/build/emulated/tandem_rocm.node)
// Every case runs on each GPU backend with `{ only }` (no fallback) and is compared with the reference on the
// same seeded inputs within the case's tolerance. Prints one line per backend and every failure.
import path from 'node:path';
import { Engine, errorMessage, type CapableBackend, type Op } from '@tandem/core';
import { computeReference, type HostTensor } from '@tandem/reference';
import { RocmBackend } from '@tandem/rocm';
import { createNodeWebGpuBackend, useSwiftShader } from '@tandem/webgpu/node';
import { CASES, caseRng } from '../cases.ts';
import { compareOutputs } from '../compare.ts';
import { hostOutputs, toEngineOp } from '../engine-io.ts';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function runOn(engine: Engine, backend: string, op: Op<HostTensor>): Promise<HostTensor[]> {
  const { op: mapped, tensors } = toEngineOp(engine, op);
  try {
    const outputs = await engine.run(mapped, { strategy: { only: backend } });
    const host = await hostOutputs(outputs);
    for (const o of outputs) o.dispose();
    return host;
  } finally {
    for (const t of tensors) t.dispose();
  }
}

// --swiftshader: rehearse on a machine without a GPU (and --rocm-addon the emulated build).
if (process.argv.includes('--swiftshader')) {
  const software = useSwiftShader();
  if (!software.ok) throw new Error(software.reason);
}
const backends: CapableBackend[] = [createNodeWebGpuBackend()];
const addon = flag('rocm-addon');
if (addon !== undefined) backends.push(new RocmBackend({ addonPath: path.resolve(addon) }));
const engine = await Engine.create({ backends });
let failures = 0;
for (const status of engine.backends()) {
  if (!status.available) {
    console.log(`${status.name}: UNAVAILABLE (${status.unavailableReason ?? '?'})`);
    failures++;
    continue;
  }
  let passed = 0;
  let unsupported = 0;
  const failed: string[] = [];
  const started = performance.now();
  for (const c of CASES) {
    const op = c.build(caseRng(c.name));
    let want: HostTensor[];
    try {
      want = computeReference(op);
    } catch {
      continue; // an error-path case: no reference output
    }
    try {
      const got = await runOn(engine, status.name, op);
      const verdict = compareOutputs(op, got, want, c.tolerance);
      if (verdict.ok) passed++;
      else failed.push(`${c.name}: ${verdict.message}`);
    } catch (error) {
      const message = errorMessage(error);
      if (/not implemented|unsupported|exceeds|limit/i.test(message)) unsupported++;
      else failed.push(`${c.name}: threw ${message}`);
    }
  }
  console.log(`${status.name} on ${status.device ?? '?'}: ${passed} passed, ${failed.length} failed, ${unsupported} unsupported of ${CASES.length} cases in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const f of failed) console.log(`  FAIL ${f.slice(0, 400)}`);
  failures += failed.length;
}
await engine.dispose();
process.exitCode = failures === 0 ? 0 : 1;
