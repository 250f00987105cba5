// fast-check over shapes drawn across the limits (issue 32): zeros, small sizes, sizes near the memory budget, the
// square root of the element limit, the limit itself and past it. Each op either runs within its memory estimate
// (its inputs, outputs and the reference's scratch: what the engine checked against the budget) or is refused with
// a typed error (InvalidArgumentError, ResourceExhaustedError) before the backend is asked; RSS stays bounded.
//
// RSS (process.memoryUsage().rss, after a forced GC) is sampled after each op, while its inputs and outputs are
// alive; the process's high-water mark (resourceUsage().maxRSS) counts too. Asserted: per op, the growth over the op <= its estimate + ALLOWANCE; overall, the peak <= baseline + 1.5 x
// (the largest op that ran: its inputs + outputs) + ALLOWANCE. ALLOWANCE is the runtime's share: V8's heap (fast-
// check's draws, tensors' objects) and the C allocator's retained free memory (glibc keeps freed blocks below its
// rising mmap threshold in its arenas), printed as `retained`; figures in docs/decisions.md. Without the output
// check a drawn matmul of [46341, k] x [k, 46341] asks for 8 GiB; without the budget, any op up to the element
// limit runs.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  Engine,
  InvalidArgumentError,
  MAX_ELEMENTS,
  opMemory,
  ResourceExhaustedError,
  inferOutputs,
  type Op,
  type Tensor,
} from '@tandem/core';
import { ReferenceBackend, referenceScratchBytes } from '@tandem/reference';

/** Runs per property: TANDEM_PROPERTY_RUNS (default 25, as the other properties), seed TANDEM_PROPERTY_SEED. */
const RUNS = {
  numRuns: Number(process.env['TANDEM_PROPERTY_RUNS'] ?? 25),
  seed: Number(process.env['TANDEM_PROPERTY_SEED'] ?? 20261122),
};
const MiB = 2 ** 20;
/** The reference's memory budget here: small, so ops that do not fit are drawn often and cheaply. */
const BUDGET = 32 * MiB;
/** Draws whose valid inputs take more than this (costly to fill) are discarded rather than made. */
const INPUT_CAP = 17 * MiB;
/** The runtime's share of RSS on top of what the ops hold (see the top of the file). */
const ALLOWANCE = 64 * MiB;

setFlagsFromString('--expose-gc');
const gcFn: unknown = runInNewContext('gc');
/** A full, synchronous garbage collection (frees dropped ArrayBuffers' memory). */
function collect(): void {
  if (typeof gcFn !== 'function') throw new Error('gc is not exposed');
  gcFn();
}

const reference = new ReferenceBackend({ memoryBytes: BUDGET });
const run = vi.spyOn(reference, 'run');
const engine = await Engine.create({ backends: [reference] });

/** One drawn op: its input shapes (f32) and how to make the op from their tensors. */
interface Draw {
  /** Input shapes, in the order `op` takes them. */
  readonly shapes: ReadonlyArray<readonly number[]>;
  /** The op over the inputs. */
  readonly op: (inputs: readonly Tensor[]) => Op<Tensor>;
}

/** Dimensions across the limits: zero, small, mid, large, the square root of the element limit, the limit, past it. */
const dimAcross = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 2, 3) },
  { weight: 3, arbitrary: fc.integer({ min: 4, max: 512 }) },
  { weight: 3, arbitrary: fc.integer({ min: 513, max: 4096 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(46340, 46341, 2 ** 20, 2 ** 24, MAX_ELEMENTS, MAX_ELEMENTS + 1, 2 ** 32, 2 ** 40),
  },
);
/** A contracted dimension (matmul's K, a vector's D): small, so outputs can cross the limits while inputs stay cheap. */
const smallDim = fc.constantFrom(0, 1, 2, 3, 8);
/** Two dimensions whose product is usually affordable, sometimes a zero beside a huge one, sometimes past the limit. */
const matrixShape = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.integer({ min: 0, max: 2100 }), fc.integer({ min: 0, max: 2100 })) },
  { weight: 1, arbitrary: fc.tuple(dimAcross, fc.constant(0)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(65536, MAX_ELEMENTS + 1, 2 ** 40), fc.constantFrom(1, 65536)) },
);

const OPS: ReadonlyArray<[string, fc.Arbitrary<Draw>]> = [
  [
    'matmul',
    fc
      .record({
        m: dimAcross,
        k: smallDim,
        k2: fc.oneof({ weight: 9, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: smallDim }),
        n: dimAcross,
      })
      .map(({ m, k, k2, n }) => ({
        shapes: [
          [m, k],
          [k2 < 0 ? k : k2, n],
        ],
        op: ([a, b]) => ({ op: 'matmul', a: need(a), b: need(b) }),
      })),
  ],
  [
    'cosineSimilarity',
    fc.record({ q: dimAcross, t: dimAcross, d: smallDim }).map(({ q, t, d }) => ({
      shapes: [
        [q, d],
        [t, d],
      ],
      op: ([queries, targets]) => ({ op: 'cosineSimilarity', queries: need(queries), targets: need(targets) }),
    })),
  ],
  [
    'concat',
    fc.record({ a: matrixShape, rows: dimAcross }).map(({ a, rows }) => ({
      shapes: [a, [rows, a[1]]],
      op: ([x, y]) => ({ op: 'concat', a: need(x), b: need(y) }),
    })),
  ],
  [
    'add (broadcast)',
    matrixShape.map((shape) => ({
      shapes: [shape, [shape[1]]],
      op: ([a, b]) => ({ op: 'add', a: need(a), b: need(b) }),
    })),
  ],
  [
    'softmax',
    fc.record({ shape: matrixShape, causal: fc.boolean() }).map(({ shape, causal }) => ({
      shapes: [shape],
      op: ([x]) => ({ op: 'softmax', x: need(x), causal }),
    })),
  ],
  [
    'rmsNorm',
    matrixShape.map((shape) => ({
      shapes: [shape, [shape[1]]],
      op: ([x, weight]) => ({ op: 'rmsNorm', x: need(x), weight: need(weight), eps: 1e-5 }),
    })),
  ],
  [
    'topK',
    fc
      .record({
        rows: fc.integer({ min: 0, max: 64 }),
        n: fc.integer({ min: 0, max: 4096 }),
        k: fc.integer({ min: 0, max: 5000 }),
      })
      .map(({ rows, n, k }) => ({
        shapes: [[rows, n]],
        op: ([x]) => ({ op: 'topK', x: need(x), k }),
      })),
  ],
  [
    'attention',
    fc
      .record({
        sq: fc.integer({ min: 0, max: 64 }),
        sk: fc.integer({ min: 0, max: 64 }),
        h: fc.constantFrom(1, 2, 4),
        d: fc.constantFrom(0, 4, 8),
      })
      .map(({ sq, sk, h, d }) => ({
        shapes: [
          [sq, h, d],
          [sk, h, d],
          [sk, h, d],
        ],
        op: ([q, k, v]) => ({ op: 'attention', q: need(q), k: need(k), v: need(v), causal: false, scale: undefined }),
      })),
  ],
];

/** The tensor at an index the draw guarantees. */
function need(t: Tensor | undefined): Tensor {
  if (t === undefined) throw new Error('missing input');
  return t;
}

/** Product of a shape, or Infinity past the element limit or with an out-of-range entry (engine.tensor refuses it). */
function elementsOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (d > MAX_ELEMENTS) return Infinity;
    n *= d;
  }
  return n > MAX_ELEMENTS ? Infinity : n;
}

let baselineRss = 0;
/** V8's heap at the baseline (printed beside its size at the end: how much of the growth is the JS heap). */
let baselineHeap = 0;
let peakRss = 0;
let largestRan = 0;
/** Most RSS above the baseline after a GC, before an op, beyond its live inputs: what the runtime kept. */
let retained = 0;
const outcomes: Record<string, number> = {
  ran: 0,
  'input refused': 0,
  InvalidArgumentError: 0,
  ResourceExhaustedError: 0,
};

afterAll(async () => {
  await engine.dispose();
});

describe('ops over shapes across the limits', () => {
  it('baseline: a warm engine after a forced GC', async () => {
    const x = engine.tensor(new Float32Array(16), [4, 4]);
    (await engine.matmul(x, x)).dispose();
    x.dispose();
    collect();
    ({ rss: baselineRss, heapTotal: baselineHeap } = process.memoryUsage());
    peakRss = baselineRss;
    expect(reference.availableMemory()).toBe(BUDGET);
  });

  for (const [name, arbitrary] of OPS) {
    it(`${name}: runs within its memory estimate or is refused with a typed error before the backend is asked`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (draw) => {
          const sizes = draw.shapes.map(elementsOf);
          const finite = sizes.every(Number.isFinite);
          fc.pre(sizes.reduce((s, n) => s + (Number.isFinite(n) ? 4 * n : 0), 0) <= INPUT_CAP);
          collect(); // the last run's dropped buffers, before this run's inputs are made
          const inputs: Tensor[] = [];
          try {
            for (const shape of draw.shapes) {
              try {
                inputs.push(
                  engine.tensor(new Float32Array(Number.isFinite(elementsOf(shape)) ? elementsOf(shape) : 0), shape),
                );
              } catch (error) {
                expect(error, `engine.tensor [${shape.join(', ')}]`).toBeInstanceOf(InvalidArgumentError);
                expect(finite).toBe(false);
                outcomes['input refused'] = (outcomes['input refused'] ?? 0) + 1;
                return;
              }
            }
            expect(finite, `[${draw.shapes.map((s) => s.join('x')).join(', ')}] were made`).toBe(true);
            const op = draw.op(inputs);
            collect();
            const before = process.memoryUsage().rss;
            retained = Math.max(retained, before - baselineRss - opMemory(op, []).inputBytes);
            const runsBefore = run.mock.calls.length;
            let outputs: Tensor[];
            try {
              outputs = await engine.run(op);
            } catch (error) {
              const typed = error instanceof InvalidArgumentError || error instanceof ResourceExhaustedError;
              expect(typed, `${op.op} failed with ${String(error)}`).toBe(true);
              if (error instanceof Error) outcomes[error.name] = (outcomes[error.name] ?? 0) + 1;
              expect(run.mock.calls.length, 'refused before the backend was asked').toBe(runsBefore);
              return;
            }
            const after = process.memoryUsage().rss;
            const specs = inferOutputs(op);
            const { inputBytes, outputBytes } = opMemory(op, specs);
            const estimate = inputBytes + outputBytes + referenceScratchBytes(op, specs);
            expect(estimate, 'the estimate the engine checked fits the budget').toBeLessThanOrEqual(BUDGET);
            expect(
              after - before,
              `${op.op} [${draw.shapes.map((s) => s.join('x')).join(', ')}]: RSS growth vs estimate ${estimate}`,
            ).toBeLessThanOrEqual(estimate + ALLOWANCE);
            peakRss = Math.max(peakRss, after);
            largestRan = Math.max(largestRan, inputBytes + outputBytes);
            outcomes['ran'] = (outcomes['ran'] ?? 0) + 1;
            for (const o of outputs) o.dispose();
          } finally {
            for (const t of inputs) t.dispose();
          }
          expect(reference.availableMemory(), 'every buffer freed').toBe(BUDGET);
        }),
        { ...RUNS, maxSkipsPerRun: 1000 },
      );
    }, 300_000);
  }

  it('peak RSS <= baseline + 1.5 x (the largest op that ran: inputs + outputs) + ALLOWANCE', () => {
    const bound = baselineRss + 1.5 * largestRan + ALLOWANCE;
    // The sampled peak, or the process's own high-water mark when something between samples went higher.
    const maxRss = process.resourceUsage().maxRSS * 1024;
    peakRss = Math.max(peakRss, maxRss);
    const mib = (bytes: number): string => (bytes / MiB).toFixed(1);
    collect();
    const end = process.memoryUsage();
    console.log(
      `[properties-limits] RSS baseline ${mib(baselineRss)} MiB, peak ${mib(peakRss)} MiB (+${mib(peakRss - baselineRss)}), ` +
        `largest op that ran ${mib(largestRan)} MiB of inputs + outputs, bound ${mib(bound)} MiB (+${mib(bound - baselineRss)}: 1.5 x ${mib(largestRan)} + ${mib(ALLOWANCE)}); ` +
        `max RSS of the process ${mib(maxRss)} MiB; retained by the runtime up to ${mib(retained)} MiB (V8 heap ${mib(baselineHeap)} -> ${mib(end.heapTotal)} MiB; at the end RSS ${mib(end.rss)} MiB, array buffers ${mib(end.arrayBuffers)} MiB); outcomes ${JSON.stringify(outcomes)}`,
    );
    expect(outcomes['ran']).toBeGreaterThan(0);
    expect((outcomes['InvalidArgumentError'] ?? 0) + (outcomes['input refused'] ?? 0)).toBeGreaterThan(0);
    expect(outcomes['ResourceExhaustedError']).toBeGreaterThan(0);
    expect(peakRss).toBeLessThanOrEqual(bound);
  });
});
