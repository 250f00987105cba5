// The GPU gate's core, apart from its command line (run-on-gpu.ts) so that a test can run it on wrong kernels:
// every case on each backend through the Engine (`{ only }`, no fallback), outputs poisoned first, compared element by
// element with @tandem/reference within the case's tolerance. A backend that does not start, a wrong element, a throw
// from a case the backend says it supports, or a failed device check is a failure.
import { backendSupports, Engine, errorMessage, type CapableBackend, type Op } from '@tandem/core';
import { computeReference, type HostTensor } from '@tandem/reference';
import { caseRng, type ConformanceCase } from '../cases.ts';
import { compareOutputs } from '../compare.ts';
import { hostOutputs, toEngineOp } from '../engine-io.ts';
import { specOf } from '../run-case.ts';
import { outOfMemoryCheck, poisonOutputs } from './gpu-checks.ts';

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

/** Runs every case on `backend`; returns the failures, printing a summary line through `log`. */
async function checkBackend(
  engine: Engine,
  backend: CapableBackend,
  device: string,
  cases: readonly ConformanceCase[],
  log: (line: string) => void,
): Promise<string[]> {
  let passed = 0;
  let unsupported = 0;
  const failed: string[] = [];
  const started = performance.now();
  for (const c of cases) {
    const op = c.build(caseRng(c.name));
    const verdict = backendSupports(backend, specOf(op));
    if (!verdict.ok) {
      unsupported++;
      continue;
    }
    try {
      await poisonOutputs(backend, op);
      const comparison = compareOutputs(op, await runOn(engine, backend.name, op), computeReference(op), c.tolerance);
      if (comparison.ok) passed++;
      else failed.push(`${c.name}: ${comparison.message}`);
    } catch (error) {
      failed.push(`${c.name}: threw ${errorMessage(error)}`);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(
    `${backend.name} on ${device}: ${passed} passed, ${failed.length} failed, ${unsupported} not supported (by its capabilities) of ${cases.length} cases in ${seconds} s`,
  );
  return failed;
}

/** Checks `cases` on every backend (the HIP one also gets the out-of-memory check); resolves with every failure. */
export async function runGate(
  backends: readonly CapableBackend[],
  cases: readonly ConformanceCase[],
  log: (line: string) => void = console.log,
): Promise<string[]> {
  const engine = await Engine.create({ backends: [...backends] });
  const failures: string[] = [];
  try {
    for (const backend of backends) {
      const status = engine.backends().find((b) => b.name === backend.name);
      if (status?.available !== true) {
        failures.push(`${backend.name}: UNAVAILABLE (${status?.unavailableReason ?? 'not registered'})`);
        continue;
      }
      failures.push(
        ...(await checkBackend(engine, backend, status.device ?? '?', cases, log)).map((f) => `${backend.name} ${f}`),
      );
      if (backend.name === 'rocm') {
        const oom = await outOfMemoryCheck(backend);
        if (oom !== undefined) failures.push(`rocm out-of-memory check: ${oom}`);
      }
    }
  } finally {
    await engine.dispose();
  }
  return failures;
}
