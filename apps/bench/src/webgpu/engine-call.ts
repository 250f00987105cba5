// Timed calls through the engine with `{ only }`: wall time of run + read (inputs resident), and the kernel time
// the backend reported for that call, taken from the engine's telemetry. A call that ran elsewhere (a fallback)
// or failed throws: a figure must be the named backend's.
import type { Engine, OpEvent, Tensor } from '@tandem/core';
import { monotonicClock } from '@tandem/core';

/** One timed call. */
export interface CallTiming {
  /** Wall time of run + read, ms. */
  readonly wallMs: number;
  /** Kernel time the backend reported, ms. */
  readonly kernelMs: number;
  /** The result, read back. */
  readonly values: Float32Array;
}

/** A call of one op on fixed resident inputs. */
export type EngineCall = () => Promise<CallTiming>;

/** A single-output op of the engine on tensors it owns. */
export type SingleOutputOp = Parameters<Engine['run']>[0];

/** Runs `op` on `only`, returning its outputs, the op event the engine recorded and when the run started. */
async function observedRun(
  engine: Engine,
  op: SingleOutputOp,
  only: string,
): Promise<{ outputs: Tensor[]; event: OpEvent; t0: number }> {
  let last: OpEvent | undefined;
  const unsubscribe = engine.telemetry.subscribe((event) => {
    last = event;
  });
  const t0 = monotonicClock();
  let outputs: Tensor[];
  try {
    outputs = await engine.run(op, { strategy: { only } });
  } finally {
    unsubscribe();
  }
  const event: OpEvent | undefined = last;
  if (event === undefined) {
    for (const t of outputs) t.dispose();
    throw new Error(`${op.op}: the engine recorded no op event`);
  }
  if (!event.ok || event.backend !== only) {
    for (const t of outputs) t.dispose();
    throw new Error(`${op.op} ran on ${event.backend} (ok=${event.ok}), not ${only}: ${event.error ?? ''}`);
  }
  return { outputs, event, t0 };
}

/** A timed call of `op` on backend `only` through `engine` (listens to its telemetry for the kernel time). */
export function engineCall(engine: Engine, op: SingleOutputOp, only: string): EngineCall {
  return async () => {
    const { outputs, event, t0 } = await observedRun(engine, op, only);
    const out = outputs[0];
    if (out === undefined) throw new Error(`${op.op} returned no output`);
    const values = await out.read();
    const wallMs = monotonicClock() - t0;
    out.dispose();
    if (!(values instanceof Float32Array)) throw new Error(`${op.op} did not return f32 values`);
    return { wallMs, kernelMs: event.kernelMs ?? wallMs, values };
  };
}

/**
 * A timed call of `op` on backend `only` that does not read the result back: the wall time of engine.run alone,
 * which resolves once the backend has finished the kernel (its kernel time comes from the finished GPU work).
 * The output stays on the device and is disposed. Throws like engineCall if the op ran elsewhere.
 */
export function runOnlyCall(engine: Engine, op: SingleOutputOp, only: string): () => Promise<number> {
  return async () => {
    const { outputs, t0 } = await observedRun(engine, op, only);
    const wallMs = monotonicClock() - t0;
    for (const t of outputs) t.dispose();
    return wallMs;
  };
}
