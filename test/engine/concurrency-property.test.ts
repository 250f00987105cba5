// A concurrency property (fast-check's scheduler): any mix of concurrent engine calls, over a backend whose runs
// finish in an order fast-check chooses (every interleaving it explores) and fail where it says (a synchronous throw,
// a rejection, out of memory, a device loss), with the reference as the fallback. Every call must answer with the
// reference's result, every failed attempt must be in the telemetry with its cause and named by the fallback that
// followed, the faulty backend must have failed at least once per fault injected, and nothing may go unhandled.
// A result that lived only on a device lost before it was read is computed again by the engine (its inputs are
// still held here), with a tensor-recomputed notice naming the loss.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Engine, type BoundTensor, type Op, type RunResult, type Tensor, type TensorSpec } from '@tandem/core';
import { computeReference, ReferenceBackend, type HostTensor } from '@tandem/reference';
import { FaultInjectingBackend, type FaultKind } from '@tandem/testing';
import { hostF32 } from '../conformance/host-tensor.ts';
import { hostOutputs, toEngineOp } from '../conformance/engine-io.ts';
import { auditFallbacks } from '../reliability/fallback-audit.ts';
import { PROPERTY_TIMEOUT_MS, RUNS } from '../reliability/property-support.ts';

/** The reference's kernels, each run resolving when fast-check's scheduler says. */
class ScheduledReference extends ReferenceBackend {
  /** The scheduler of the current property run. */
  constructor(private readonly scheduler: fc.Scheduler) {
    super();
  }

  /** Runs the op; its result is released by the scheduler. */
  override run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    return this.scheduler.schedule(super.run(op, outputs), `run ${op.op}`);
  }
}

/** One call: an op over host values. */
const call: fc.Arbitrary<Op<HostTensor>> = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }))
    .chain(([m, k, n]) =>
      fc
        .tuple(
          fc.array(fc.integer({ min: -8, max: 8 }), { minLength: m * k, maxLength: m * k }),
          fc.array(fc.integer({ min: -8, max: 8 }), { minLength: k * n, maxLength: k * n }),
        )
        .map(
          ([a, b]): Op<HostTensor> => ({
            op: 'matmul',
            a: hostF32([m, k], Float32Array.from(a)),
            b: hostF32([k, n], Float32Array.from(b)),
          }),
        ),
    ),
  fc.array(fc.integer({ min: -100, max: 100 }), { minLength: 1, maxLength: 9 }).map(
    (v): Op<HostTensor> => ({
      op: 'softmax',
      x: hostF32(
        [1, v.length],
        Float32Array.from(v, (x) => x / 16),
      ),
      causal: false,
    }),
  ),
  fc.array(fc.integer({ min: -100, max: 100 }), { minLength: 1, maxLength: 9 }).map(
    (v): Op<HostTensor> => ({
      op: 'silu',
      x: hostF32(
        [v.length],
        Float32Array.from(v, (x) => x / 8),
      ),
    }),
  ),
);

/** A fault (or none) for each run of the faulty backend, in call order. */
const faults: fc.Arbitrary<Array<FaultKind | undefined>> = fc.array(
  fc.option(fc.constantFrom<FaultKind>('throw', 'reject', 'oom', 'device-lost'), { nil: undefined, freq: 2 }),
  { maxLength: 20 },
);

let unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => void unhandled.push(e);
beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('concurrent engine calls with faults, in every order fast-check picks', () => {
  it(
    'every call answers with the reference, every failure is accounted for, nothing goes unhandled',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.array(call, { minLength: 1, maxLength: 8 }),
          faults,
          async (scheduler, ops, plan) => {
            const gpu = new FaultInjectingBackend(new ScheduledReference(scheduler), (n) => plan[n - 1], {
              name: 'gpu',
              kind: 'gpu',
            });
            const engine = await Engine.create({
              backends: [gpu, new ReferenceBackend({ fallbackOnly: true })],
              strategy: 'gpu-preferred',
            });
            const made: Tensor[] = [];
            const calls = ops.map(async (op) => {
              const { op: mapped, tensors } = toEngineOp(engine, op);
              made.push(...tensors);
              return hostOutputs(await engine.run(mapped));
            });
            const answers = await scheduler.waitFor(Promise.all(calls));
            answers.forEach((got, i) => {
              expect(got, `call ${i} (${ops[i]?.op})`).toEqual(
                computeReference(ops[i] ?? { op: 'silu', x: hostF32([0], new Float32Array(0)) }),
              );
            });
            const events = engine.telemetry.opEvents();
            const audit = auditFallbacks(events);
            expect(audit.unexplained).toEqual([]);
            expect(audit.withCause).toBe(audit.failed);
            expect(events.filter((e) => e.backend === 'gpu' && !e.ok).length).toBeGreaterThanOrEqual(gpu.totalInjected);
            // A result lost with the device before it was read is recomputed (lineage.ts): one more successful call each.
            const recomputed = engine.telemetry.noticeEvents().filter((e) => e.kind === 'tensor-recomputed');
            expect(events.filter((e) => e.ok)).toHaveLength(ops.length + recomputed.length);
            for (const notice of recomputed) expect(notice.detail).toMatch(/injected device loss/);
            for (const t of made) t.dispose();
            await engine.dispose();
            await new Promise((resolve) => setImmediate(resolve)); // let a late rejection surface
            expect(unhandled).toEqual([]);
          },
        ),
        RUNS,
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});
