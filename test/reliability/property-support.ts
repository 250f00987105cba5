// Shared by the property-based tests: an engine over the backends under test, the seed, and what "agree" means.
// Expected values come from @tandem/reference's kernels (computeReference) on the same host tensors, never from a
// backend. Each property is data (OpProperty): its inputs and, per input, the ops to compare; it runs on one backend
// at a time (properties.test.ts), and on deliberately wrong kernels, which it must catch (properties-self-check).
//
// What "agree" means, per output element (the reference's value w, a backend's value g):
// - w is NaN: g must be NaN (same positions).
// - w is +Inf or -Inf: g must be the same infinity.
// - otherwise: |g - w| <= tolerance.abs + tolerance.rel * |w| + extra, where extra is a per-element slack some
//   properties give (a dot product: f32 summation in any order stays within k u sum_k |a_ik b_kj| of the exact sum).
// - integer outputs (topK indices) are equal.
// - rule 'non-finite' (dot products over corrupt quantized blocks): where w is not finite, any NaN or infinity
//   will do (see NonFiniteRule).
// Subnormals: WGSL lets a GPU flush subnormal inputs and outputs to zero, so GPU backends get inputs flushed the same
// way (for them and for the reference), and their outputs are flushed too.
import fc from 'fast-check';
import { Engine, mapOpTensors, type CapableBackend, type Op, type OpKind } from '@tandem/core';
import { computeReference, type HostTensor } from '@tandem/reference';
import type { Tolerance } from '../conformance/case.ts';
import { hostOutputs, toEngineOp } from '../conformance/engine-io.ts';
import { valuesOf } from '../conformance/host-tensor.ts';
import { PROPERTY_SEED } from '../support/seed.ts';
import type { WrongKind } from '../support/wrong-backend.ts';

/** fast-check settings: 25 runs in npm test, TANDEM_PROPERTY_RUNS=500 in test:stress; the run's seed (printed). */
export const RUNS = { numRuns: Number(process.env['TANDEM_PROPERTY_RUNS'] ?? 25), seed: PROPERTY_SEED };

/** A property's time limit, scaled with the number of runs (120 s at the default 25). */
export const PROPERTY_TIMEOUT_MS = 120_000 * Math.max(1, RUNS.numRuns / 25);

/**
 * 'exact': NaN where the reference has NaN, the same infinity where it has one. 'non-finite': any NaN or infinity
 * where the reference is not finite (for dot products over corrupt quantized blocks, where ggml-style kernels
 * apply the block scale after the block's sum: Inf x sum instead of the reference's sum of Inf x 0 = NaN terms;
 * either way the corruption shows, never as a plausible finite value).
 */
export type NonFiniteRule = 'exact' | 'non-finite';

/** One op a backend and the reference must agree on, and how closely. */
export interface Agreement {
  /** The op over host tensors (inputs flushed already when the backend is a GPU). */
  readonly op: Op<HostTensor>;
  /** Allowed distance: abs + rel * |want| (+ extra) per element. */
  readonly tolerance: Tolerance;
  /** Per-element slack added for output 0 (e.g. a dot product's accumulation bound); absent: none. */
  readonly extra?: Float64Array;
  /** How non-finite reference values compare (default 'exact'). */
  readonly rule?: NonFiniteRule;
}

/** A property: random inputs and, for each, the ops a backend must agree with the reference on. */
export interface OpProperty<T> {
  /** The test's title. */
  readonly name: string;
  /** The inputs drawn. */
  readonly input: fc.Arbitrary<T>;
  /** The ops to compare for one input; `flush`: the backend is a GPU (flush subnormal inputs). */
  readonly agreements: (input: T, flush: boolean) => Agreement[];
  /** The wrong kernels this property must catch (properties-self-check.test.ts). */
  readonly catches: readonly WrongKind[];
}

/** Where `got` and `want` disagree (see the top of this file), or undefined when they agree. */
export function agree(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tolerance: Tolerance,
  rule: NonFiniteRule = 'exact',
  extra?: Float64Array,
): string | undefined {
  if (got.length !== want.length) return `length ${got.length} vs ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    const g = got[i] ?? 0;
    const w = want[i] ?? 0;
    if (rule === 'non-finite' && !Number.isFinite(w)) {
      if (Number.isFinite(g)) return `[${i}] got ${g}, want a non-finite value (${w})`;
    } else if (Number.isNaN(w)) {
      if (!Number.isNaN(g)) return `[${i}] got ${g}, want NaN`;
    } else if (!Number.isFinite(w)) {
      if (g !== w) return `[${i}] got ${g}, want ${w}`;
    } else {
      const limit = tolerance.abs + tolerance.rel * Math.abs(w) + (extra?.[i] ?? 0);
      if (!(Math.abs(g - w) <= limit)) return `[${i}] got ${g}, want ${w} (limit ${limit})`;
    }
  }
  return undefined;
}

/** Subnormals to (signed) zero, as a GPU may treat them. */
export function flushed(values: ArrayLike<number>): Float32Array {
  return Float32Array.from(values, (v) => (v !== 0 && Math.abs(v) < 1.1754943508222875e-38 ? 0 * Math.sign(v) : v));
}

/** A backend a property runs on. */
export interface Target {
  /** Backend name. */
  readonly name: string;
  /** Whether it is a GPU (compared on flushed inputs and outputs). */
  readonly gpu: boolean;
}

/** An engine over the backends under test, running host ops on one backend at a time. */
export class AgreementBench {
  private constructor(readonly engine: Engine) {}

  /** An engine over `backends` (initialised by Engine.create). */
  static async create(backends: readonly CapableBackend[]): Promise<AgreementBench> {
    return new AgreementBench(await Engine.create({ backends: [...backends] }));
  }

  /** `backend` as a property target. */
  target(backend: CapableBackend): Target {
    return { name: backend.name, gpu: backend.kind === 'gpu' };
  }

  /** Every output of `op` run on `backend` alone, as host tensors. */
  async outputsOn(op: Op<HostTensor>, backend: string): Promise<HostTensor[]> {
    const { op: mapped, tensors } = toEngineOp(this.engine, op);
    try {
      const outputs = await this.engine.run(mapped, { strategy: { only: backend } });
      const host = await hostOutputs(outputs);
      for (const o of outputs) o.dispose();
      return host;
    } finally {
      for (const t of tensors) t.dispose();
    }
  }

  /** Throws, naming the op, backend and element, when `target` disagrees with the reference on `agreement`. */
  async check(target: Target, agreement: Agreement): Promise<void> {
    const { op, tolerance, rule, extra } = agreement;
    const want = computeReference(op);
    const got = await this.outputsOn(op, target.name);
    if (got.length !== want.length)
      throw new Error(`${op.op} on ${target.name}: ${got.length} outputs, want ${want.length}`);
    want.forEach((w, i) => {
      const g = got[i];
      if (g === undefined) return;
      const gv = valuesOf(g);
      const wv = valuesOf(w);
      const integer = wv instanceof Int32Array || wv instanceof Uint32Array;
      const problem = agree(
        target.gpu && !integer ? flushed(gv) : gv,
        wv,
        integer ? { abs: 0, rel: 0 } : tolerance,
        rule,
        i === 0 ? extra : undefined,
      );
      if (problem !== undefined)
        throw new Error(
          `${op.op} output ${i} on ${target.name}${target.gpu ? ' (subnormals flushed)' : ''}: ${problem}`,
        );
    });
  }

  /** Frees every backend. */
  async dispose(): Promise<void> {
    await this.engine.dispose();
  }
}

/** Runs `property` on `target` (fc.assert: rejects with the counterexample, seed and path when it fails). */
export async function assertProperty<T>(
  bench: AgreementBench,
  target: Target,
  property: OpProperty<T>,
  runs: fc.Parameters<unknown> = RUNS,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(property.input, async (input) => {
      for (const agreement of property.agreements(input, target.gpu)) await bench.check(target, agreement);
    }),
    runs,
  );
}

/** The op with every f32 input's subnormals flushed when `flush` (a GPU's view of the same op). */
export function flushInputs(op: Op<HostTensor>, flush: boolean): Op<HostTensor> {
  if (!flush) return op;
  return mapOpTensors(op, (t) => (t.dtype === 'f32' ? { ...t, data: new Uint8Array(flushed(valuesOf(t)).buffer) } : t));
}

/** A property with its input type closed over, so that properties of different inputs share one list. */
export interface CheckableProperty {
  /** The test's title. */
  readonly name: string;
  /** The wrong kernels it must catch. */
  readonly catches: readonly WrongKind[];
  /** Runs it on `target` (rejects on a counterexample). */
  readonly assert: (bench: AgreementBench, target: Target, runs?: fc.Parameters<unknown>) => Promise<void>;
  /** The op ids its agreements run, over `samples` drawn inputs (seeded by the run's seed). */
  readonly opsSampled: (samples: number) => ReadonlySet<OpKind>;
}

/** `property`, ready for a list of properties of any inputs. */
export function checkable<T>(property: OpProperty<T>): CheckableProperty {
  return {
    name: property.name,
    catches: property.catches,
    assert: (bench, target, runs = RUNS) => assertProperty(bench, target, property, runs),
    opsSampled: (samples) =>
      new Set(
        fc
          .sample(property.input, { numRuns: samples, seed: RUNS.seed })
          .flatMap((input) => property.agreements(input, false).map((a) => a.op.op)),
      ),
  };
}
