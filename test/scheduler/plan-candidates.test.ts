// What Scheduler.plan (run()'s decision, explain()'s answer) reports about the backends it leaves out: each skipped
// backend's reason, the memory shortfall when nothing could take the op, and the reasons of the strategies.
import { describe, expect, it } from 'vitest';
import { candidate, planBench, planOf } from './plan-bench.ts';

describe('Scheduler.plan: skipped backends and their reasons', () => {
  it('forceCpu leaves out every GPU that could take the op, with the reason forceCpu', () => {
    const bench = planBench({ forceCpu: true });
    const plan = planOf(
      bench.plan([
        candidate('gpu0', 'gpu', { unusable: 'unavailable: no adapter' }),
        candidate('cpu', 'cpu', { priorMs: 5 }),
        candidate('gpu1', 'gpu'),
      ]),
    );
    expect(plan.skipped).toEqual([
      { backend: 'gpu0', reason: 'unavailable: no adapter' },
      { backend: 'gpu1', reason: 'forceCpu' },
    ]);
    expect(plan.selection).toEqual({ backend: 'cpu', reason: { kind: 'force-cpu' }, estimatedMs: 5 });
    expect(plan.fallbacks).toEqual([]);
  });

  it("{ only } leaves out every other backend with 'strategy only: <name>' and names the backend in its reason", () => {
    const plan = planOf(
      planBench().plan([candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { priorMs: 3 }), candidate('wasm', 'cpu')], {
        strategy: { only: 'gpu' },
      }),
    );
    expect(plan.skipped).toEqual([
      { backend: 'cpu', reason: 'strategy only: gpu' },
      { backend: 'wasm', reason: 'strategy only: gpu' },
    ]);
    expect(plan.selection).toEqual({
      backend: 'gpu',
      reason: { kind: 'user-preference', strategy: 'only gpu' },
      estimatedMs: 3,
    });
  });

  it('a backend that needs exactly the bytes it has free is not left out', () => {
    const plan = planOf(
      planBench().plan(
        [candidate('cpu', 'cpu'), candidate('gpu', 'gpu', { requiredBytes: 1000, availableBytes: 1000 })],
        {
          strategy: 'gpu-preferred',
        },
      ),
    );
    expect(plan.selection).toMatchObject({ backend: 'gpu', reason: { kind: 'gpu-available' } });
    expect(plan.skipped).toEqual([]);
  });

  it('with no bytes free anywhere, the shortfall still says so: 0 bytes available', () => {
    const result = planBench().plan([
      candidate('cpu', 'cpu', { unusable: 'unsupported' }),
      candidate('gpu', 'gpu', { requiredBytes: 1000, availableBytes: 0 }),
    ]);
    expect(result).toEqual({
      ok: false,
      skipped: [
        { backend: 'cpu', reason: 'unsupported' },
        { backend: 'gpu', reason: 'needs 1000 bytes, 0 available' },
      ],
      shortfall: { requiredBytes: 1000, availableBytes: 0 },
    });
  });
});

describe('Scheduler.plan: gpu-preferred without a GPU says why', () => {
  it("with no GPU backend at all, the reason is 'no GPU backend registered'", () => {
    const plan = planOf(planBench().plan([candidate('cpu', 'cpu')], { strategy: 'gpu-preferred' }));
    expect(plan.selection.reason).toEqual({ kind: 'gpu-unavailable', why: 'no GPU backend registered' });
  });

  it("with GPUs that can't take the op, the reason lists each one and its reason, separated by '; '", () => {
    const plan = planOf(
      planBench().plan(
        [
          candidate('gpu0', 'gpu', { unusable: 'unhealthy: device lost' }),
          candidate('cpu', 'cpu'),
          candidate('gpu1', 'gpu', { unusable: 'matmul is not implemented' }),
        ],
        { strategy: 'gpu-preferred' },
      ),
    );
    expect(plan.selection).toEqual({
      backend: 'cpu',
      reason: { kind: 'gpu-unavailable', why: 'gpu0: unhealthy: device lost; gpu1: matmul is not implemented' },
      estimatedMs: 1,
    });
  });
});
