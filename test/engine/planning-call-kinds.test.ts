// The numbers the engine's planner gives a call for its decision cache (engine-planning.ts): a call's kind (op, dtypes,
// strategy) and its inputs' residency signature. A cached plan is reused by a call with the same kind and signature
// (and work), so two calls that differ in any of these must never share a number, and a call whose number could not be
// exact must get no kind at all (it is then planned afresh every time).
import { describe, expect, it } from 'vitest';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { DTYPES } from '../../packages/core/src/dtype.ts';
import { Engine } from '../../packages/core/src/engine.ts';
import type { CallInputs, CallPlanner } from '../../packages/core/src/engine-planning.ts';
import { OP_KINDS } from '../../packages/core/src/ops.ts';
import type { Strategy } from '../../packages/core/src/scheduler/selection.ts';

/** An engine over simulated backends named `names` (the first a CPU, the rest GPUs), and the planner it plans with. */
async function plannerOver(
  names: readonly string[] = ['cpu', 'gpu'],
): Promise<{ engine: Engine; planner: CallPlanner }> {
  const clock = new ManualClock();
  const backends = names.map(
    (name, i) =>
      new SimulatedBackend({
        name,
        kind: i === 0 ? 'cpu' : 'gpu',
        priority: 10 + i,
        latencyMs: (_op, w) => (i === 0 ? 0.003 + w.flops / 4e7 : 0.1 + w.flops / 2e9),
        clock,
      }),
  );
  const engine = await Engine.create({ clock: clock.clock, backends });
  // The planner is the engine's own (private) one: its backend order is the engine's.
  const planner: CallPlanner = Reflect.get(engine, 'planner');
  return { engine, planner };
}

const STRATEGIES: readonly Strategy[] = ['auto', 'gpu-preferred', 'cpu-preferred', { only: 'cpu' }, { only: 'gpu' }];

describe("a call's kind", () => {
  it('every op, first dtype, second dtype and strategy gets a kind of its own', async () => {
    const { engine, planner } = await plannerOver();
    const tensorOf = new Map(DTYPES.map((d) => [d, engine.zeros([32], d)]));
    const input = (d: (typeof DTYPES)[number]) => ({ name: d, tensor: tensorOf.get(d)! });
    const calls: { what: string; kind: number | undefined }[] = [];
    for (const op of OP_KINDS)
      for (const first of DTYPES)
        for (const second of [undefined, ...DTYPES.filter((d) => d !== first)]) {
          // A second dtype counts wherever it comes after the first (as a quantized weight does).
          const inputs: CallInputs =
            second === undefined ? [input(first), input(first)] : [input(first), input(first), input(second)];
          for (const strategy of STRATEGIES)
            calls.push({
              what: `${op} ${first}/${second ?? '-'} ${JSON.stringify(strategy)}`,
              kind: planner.kindOf(op, inputs, strategy),
            });
        }
    expect(calls.filter((c) => c.kind === undefined).map((c) => c.what)).toEqual([]);
    const byKind = new Map<number | undefined, string>();
    const collisions: string[] = [];
    for (const c of calls) {
      const earlier = byKind.get(c.kind);
      if (earlier !== undefined) collisions.push(`${earlier} = ${c.what}`);
      byKind.set(c.kind, c.what);
    }
    expect(collisions).toEqual([]);
    expect(calls).toHaveLength(OP_KINDS.length * DTYPES.length * DTYPES.length * STRATEGIES.length);
  });

  it('identical calls get the same kind', async () => {
    const { engine, planner } = await plannerOver();
    const x = engine.zeros([32]);
    const w = engine.zeros([32], 'q8_0');
    const call = () =>
      planner.kindOf(
        'quantizedMatmul',
        [
          { name: 'x', tensor: x },
          { name: 'w', tensor: w },
        ],
        { only: 'gpu' },
      );
    expect(call()).toBe(call());
  });

  it('an only-strategy naming a backend the planner does not have gets no kind', async () => {
    const { engine, planner } = await plannerOver();
    const x = engine.zeros([32]);
    expect(planner.kindOf('scale', [{ name: 'x', tensor: x }], { only: 'npu' })).toBeUndefined();
  });

  it('up to 6 backends a call gets a kind; with 7 none, as their residency signature would not be exact', async () => {
    const six = await plannerOver(['cpu', 'gpu', 'b2', 'b3', 'b4', 'b5']);
    const x6 = six.engine.zeros([32]);
    expect(six.planner.kindOf('scale', [{ name: 'x', tensor: x6 }], 'auto')).toEqual(expect.any(Number));
    const seven = await plannerOver(['cpu', 'gpu', 'b2', 'b3', 'b4', 'b5', 'b6']);
    const x7 = seven.engine.zeros([32]);
    expect(seven.planner.kindOf('scale', [{ name: 'x', tensor: x7 }], 'auto')).toBeUndefined();
  });

  it('up to 6 inputs a call gets a kind; with 7 none, as their residency signature would not be exact', async () => {
    const { engine, planner } = await plannerOver();
    const inputs = Array.from({ length: 7 }, (_, i) => ({ name: `x${i}`, tensor: engine.zeros([32]) }));
    expect(planner.kindOf('concat', inputs.slice(0, 6), 'auto')).toEqual(expect.any(Number));
    expect(planner.kindOf('concat', inputs, 'auto')).toBeUndefined();
  });
});

describe("a call's residency signature", () => {
  it('an input copied to a device from the host signs differently from an output that lives only on that device', async () => {
    const { engine, planner } = await plannerOver();
    const a = engine.zeros([64, 64]);
    const [c] = await engine.run({ op: 'matmul', a, b: a }, { strategy: { only: 'gpu' } });
    // Both have a replica on the GPU; only `a` has a host copy.
    expect(planner.residencySignature([{ name: 'a', tensor: a }])).not.toBe(
      planner.residencySignature([{ name: 'c', tensor: c! }]),
    );
  });

  it('an output kept on one backend signs differently from one kept on another', async () => {
    const { engine, planner } = await plannerOver();
    const a = engine.zeros([64, 64]);
    const [onCpu] = await engine.run({ op: 'matmul', a, b: a }, { strategy: { only: 'cpu' } });
    const [onGpu] = await engine.run({ op: 'matmul', a, b: a }, { strategy: { only: 'gpu' } });
    expect(planner.residencySignature([{ name: 'c', tensor: onCpu! }])).not.toBe(
      planner.residencySignature([{ name: 'c', tensor: onGpu! }]),
    );
  });
});
