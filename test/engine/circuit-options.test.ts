// The circuit breaker's defaults, as the README states them, and each of them configurable through the engine's
// `tracker` option (createEngine passes it on): minCalls, the success-rate threshold, the window and the cool-down.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRACKER_CONFIG, Engine, type TrackerConfig } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { FaultInjectingBackend, faultSchedule } from '@tandem/testing';

/** A GPU whose second call rejects, a CPU that never fails, and five silu calls under gpu-preferred. */
async function fiveCallsOneFault(
  tracker?: Partial<TrackerConfig>,
): Promise<{ circuit: string | undefined; fellBack: number; notices: unknown[] }> {
  const gpu = new FaultInjectingBackend(new ReferenceBackend(), faultSchedule({ 2: 'reject' }), {
    name: 'gpu',
    kind: 'gpu',
  });
  const engine = await Engine.create({
    backends: [gpu, new ReferenceBackend()],
    strategy: 'gpu-preferred',
    ...(tracker === undefined ? {} : { tracker }),
  });
  const x = engine.ones([4]);
  for (let i = 0; i < 5; i++) (await engine.silu(x)).dispose();
  const circuit = engine.trackerStats().find((s) => s.backend === 'gpu' && s.op === 'silu')?.circuit;
  const fellBack = engine.telemetry.opEvents().filter((e) => e.reason.kind === 'error-fallback').length;
  const notices = engine.telemetry
    .noticeEvents()
    .filter((n) => n.kind.startsWith('circuit-'))
    .map(({ kind, backend, op, detail }) => ({ kind, backend, op, detail }));
  await engine.dispose();
  return { circuit, fellBack, notices };
}

describe('circuit breaker settings', () => {
  it('has the documented defaults: opens below a 0.95 success rate over the last 50 calls, once 5 are in, for 2 s', () => {
    expect(DEFAULT_TRACKER_CONFIG).toEqual({
      successRateThreshold: 0.95,
      window: 50,
      minCalls: 5,
      coolDownMs: 2000,
      latencyWindow: 256,
    });
  });

  it('by default one failure in five calls opens the circuit (4/5 = 0.8 < 0.95)', async () => {
    expect(await fiveCallsOneFault()).toMatchObject({ circuit: 'open', fellBack: 1 });
  });

  it('says when a circuit opens: a circuit-open notice naming the backend, the op and the success rate', async () => {
    expect((await fiveCallsOneFault()).notices).toEqual([
      { kind: 'circuit-open', backend: 'gpu', op: 'silu', detail: 'success rate 0.80' },
    ]);
  });

  it('minCalls is configurable: with 20 the same failure leaves it closed, and the call still fell back', async () => {
    expect(await fiveCallsOneFault({ minCalls: 20 })).toMatchObject({ circuit: 'closed', fellBack: 1, notices: [] });
  });

  it('so is the threshold: at 0.75 a 0.8 success rate keeps it closed', async () => {
    expect(await fiveCallsOneFault({ successRateThreshold: 0.75 })).toMatchObject({
      circuit: 'closed',
      fellBack: 1,
      notices: [],
    });
  });
});
