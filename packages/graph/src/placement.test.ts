// The placement search on random chains of matmuls and cheap ops over simulated backends (CPU and GPU with the
// engine's default priors, a random bus; a new seed each run, printed): the plan is priced as the engine would, no
// worse than greedy or a uniform plan, and a local optimum; against brute force over every assignment it can lose
// (a known gap, pinned below).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DEFAULT_PROFILES, Engine, rooflineMs } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { GraphBuilder } from './graph-builder.ts';
import { backendBit, HOST_BIT } from './phantom.ts';
import { planPlacement, priceAssignment, type PlacementRequest } from './placement.ts';
import type { SymbolicTensor } from './symbolic.ts';
import { PROPERTY_SEED } from '../../../test/support/seed.ts';

const WIDTH = 128;
type Step = 'matmul' | 'silu' | 'scale' | 'add' | 'rmsNorm';

async function request(rows: number, busBytesPerMs: number, steps: readonly Step[]): Promise<PlacementRequest> {
  const clock = new ManualClock();
  const gpuProfile = { ...DEFAULT_PROFILES.gpu, transferBytesPerMs: busBytesPerMs };
  const cpu = new SimulatedBackend({
    name: 'cpu',
    kind: 'cpu',
    clock,
    performance: DEFAULT_PROFILES.cpu,
    latencyMs: (_op, w) => rooflineMs(w, DEFAULT_PROFILES.cpu),
  });
  const gpu = new SimulatedBackend({
    name: 'gpu',
    kind: 'gpu',
    clock,
    performance: gpuProfile,
    transferBytesPerMs: busBytesPerMs,
    latencyMs: (_op, w) => rooflineMs(w, gpuProfile),
  });
  const engine = await Engine.create({ backends: [cpu, gpu], clock: clock.clock });
  const g = new GraphBuilder(engine, { name: 'chain' });
  const x = g.input('x', 'f32', [rows, WIDTH]);
  const weight = g.constant('w', engine.tensor(new Float32Array(WIDTH * WIDTH), [WIDTH, WIDTH]));
  let h: SymbolicTensor = x;
  steps.forEach((kind, i) => {
    const name = `n${i}.${kind}`;
    if (kind === 'matmul') h = g.matmul(name, h, weight);
    else if (kind === 'silu') h = g.silu(name, h);
    else if (kind === 'scale') h = g.scale(name, h, 0.5);
    else if (kind === 'add') h = g.add(name, h, x);
    else h = g.rmsNorm(name, h, undefined);
  });
  g.output('y', h);
  const graph = g.build();
  const backends = ['cpu', 'gpu'];
  const everywhere = HOST_BIT | backendBit(0) | backendBit(1);
  return {
    engine,
    steps: graph.execution.steps,
    initial: new Map([
      [x.id, HOST_BIT],
      [weight.id, everywhere],
    ]),
    backends,
  };
}

function bruteForceMs(req: PlacementRequest): number {
  const n = req.steps.length;
  let best = Infinity;
  for (let bits = 0; bits < 2 ** n; bits++) {
    const assignment = Array.from({ length: n }, (_, i) => ((bits >> i) & 1 ? 'gpu' : 'cpu'));
    best = Math.min(best, priceAssignment(req, assignment));
  }
  return best;
}

describe('placement search', () => {
  it('returns a local optimum no worse than greedy or any uniform plan, priced as the engine would (random chains)', async () => {
    const step = fc.constantFrom<Step>('matmul', 'silu', 'scale', 'add', 'rmsNorm');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 16, 64, 256, 1024),
        fc.constantFrom(1e5, 1e6, 5e6, 2e7, 1e9),
        fc.array(step, { minLength: 2, maxLength: 7 }),
        async (rows, bus, steps) => {
          const req = await request(rows, bus, steps);
          const plan = planPlacement(req);
          expect(plan).toBeDefined();
          const chosen = plan?.nodes.map((n) => n.backend) ?? [];
          const total = plan?.estimatedMs ?? Infinity;
          // The plan's own total is what pricing its assignment gives.
          expect(priceAssignment(req, chosen)).toBeCloseTo(total, 9);
          expect(total).toBeLessThanOrEqual((plan?.greedyMs ?? 0) * (1 + 1e-9));
          for (const b of ['cpu', 'gpu'])
            expect(total).toBeLessThanOrEqual(
              priceAssignment(
                req,
                steps.map(() => b),
              ) *
                (1 + 1e-9),
            );
          // No single node moved to the other backend does better (the search moves single nodes and whole segments).
          chosen.forEach((backend, i) => {
            const moved = chosen.map((b, j) => (j === i ? (backend === 'cpu' ? 'gpu' : 'cpu') : b));
            expect(priceAssignment(req, moved), `node ${i} moved`).toBeGreaterThanOrEqual(total * (1 - 1e-9));
          });
          await req.engine.dispose();
        },
      ),
      { numRuns: 40, seed: PROPERTY_SEED },
    );
  });

  // KNOWN GAP, found by a random seed (issue 35): the search stops at a local optimum. On this chain the best plan
  // moves two segments at once; the search's total is 0.484 ms against the brute-force best 0.398 ms.
  it.fails('finds the cheapest of every assignment (brute force over all 2^n): 256 rows, bus 1e6, silu silu matmul matmul', async () => {
    const req = await request(256, 1e6, ['silu', 'silu', 'matmul', 'matmul']);
    const plan = planPlacement(req);
    expect(plan?.estimatedMs ?? Infinity).toBeLessThanOrEqual(bruteForceMs(req) * (1 + 1e-9));
    await req.engine.dispose();
  });

  it('returns the uniform plans within the asked factor of its own total as alternatives, and none unasked', async () => {
    const step = fc.constantFrom<Step>('matmul', 'silu', 'scale', 'add', 'rmsNorm');
    let seen = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 64, 1024),
        fc.constantFrom(1e6, 2e7, 1e9),
        fc.array(step, { minLength: 2, maxLength: 6 }),
        async (rows, bus, steps) => {
          const req = await request(rows, bus, steps);
          expect(planPlacement(req)?.alternatives).toEqual([]);
          const plan = planPlacement({ ...req, alternativesWithin: 2 });
          const own = plan?.nodes.map((n) => n.backend).join() ?? '';
          const uniform = ['cpu', 'gpu'].map((b) => steps.map(() => b).join()).filter((a) => a !== own);
          const expected = uniform.filter((a) => priceAssignment(req, a.split(',')) <= (plan?.estimatedMs ?? 0) * 2);
          expect(plan?.alternatives.map((a) => a.nodes.map((n) => n.backend).join()).sort()).toEqual(expected.sort());
          for (const a of plan?.alternatives ?? [])
            expect(a.estimatedMs).toBeCloseTo(
              priceAssignment(
                req,
                a.nodes.map((n) => n.backend),
              ),
              9,
            );
          seen += plan?.alternatives.length ?? 0;
          await req.engine.dispose();
        },
      ),
      { numRuns: 30, seed: PROPERTY_SEED },
    );
    expect(seen).toBeGreaterThan(0);
  });
});
