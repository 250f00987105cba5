// Shared by the property-based tests: an engine over every backend the conformance suite runs here, running an op
// on each backend alone and comparing with the float64 reference.
//
// What "agree" means, per output element (the reference's value w, a backend's value g):
// - w is NaN: g must be NaN (same positions).
// - w is +Inf or -Inf: g must be the same infinity.
// - otherwise: |g - w| <= tolerance.abs + tolerance.rel * |w|, the tolerance of the op's conformance cases
//   (test/conformance/case.ts): ONE_F32_ROUNDING for add/mul/scale and dequantize, f32Dot(k) for dot products,
//   F16_OUTPUT for f16 outputs, a few f32 ulps for silu, softmax and rmsNorm (each property names its own).
// - rule 'non-finite' (dot products over corrupt quantized blocks): where w is not finite, any NaN or infinity
//   will do (see NonFiniteRule).
// Subnormals: WGSL lets a GPU flush subnormal inputs and outputs to zero, so GPU backends are compared with the
// reference run on inputs flushed the same way, and their outputs flushed too.
import { Engine, halfToFloat, type HostArray, type Op, type Tensor } from '@tandem/core';
import { availableBackends } from '../conformance/backends.ts';
import type { Tolerance } from '../conformance/case.ts';

/** fast-check settings: modest in npm test, TANDEM_PROPERTY_RUNS=1000 in test:stress; the seed is fixed. */
export const RUNS = { numRuns: Number(process.env['TANDEM_PROPERTY_RUNS'] ?? 25), seed: Number(process.env['TANDEM_PROPERTY_SEED'] ?? 20261122) };

/** A property's time limit, scaled with the number of runs (120 s at the default 25). */
export const PROPERTY_TIMEOUT_MS = 120_000 * Math.max(1, RUNS.numRuns / 25);

/**
 * 'exact': NaN where the reference has NaN, the same infinity where it has one. 'non-finite': any NaN or infinity
 * where the reference is not finite (for dot products over corrupt quantized blocks, where ggml-style kernels
 * apply the block scale after the block's sum: Inf x sum instead of the reference's sum of Inf x 0 = NaN terms;
 * either way the corruption shows, never as a plausible finite value).
 */
export type NonFiniteRule = 'exact' | 'non-finite';

/** Where `got` and `want` disagree (see the top of this file), or undefined when they agree. */
export function agree(got: Float32Array, want: Float32Array, tolerance: Tolerance, rule: NonFiniteRule = 'exact'): string | undefined {
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
    } else if (!(Math.abs(g - w) <= tolerance.abs + tolerance.rel * Math.abs(w))) {
      return `[${i}] got ${g}, want ${w}`;
    }
  }
  return undefined;
}

/** Subnormals to (signed) zero, as a GPU may treat them. */
export function flushed(values: ArrayLike<number>): Float32Array {
  return Float32Array.from(values, (v) => (v !== 0 && Math.abs(v) < 1.1754943508222875e-38 ? 0 * Math.sign(v) : v));
}

/** The bit patterns of f32 values (so NaN equals NaN and -0 differs from 0). */
export function bitsOf(values: HostArray | undefined): Uint32Array {
  if (!(values instanceof Float32Array)) throw new Error('expected f32 values');
  return new Uint32Array(values.buffer, values.byteOffset, values.length);
}

/** A backend compared with the reference. */
export interface BackendUnderTest {
  /** Backend name. */
  readonly name: string;
  /** Whether it is a GPU (compared on flushed inputs). */
  readonly gpu: boolean;
}

/** An engine over every available backend, and the comparisons the properties make. */
export class AgreementBench {
  /** The engine (reference, wasm, webgpu on SwiftShader, rocm on HIP emulation: whichever start here). */
  readonly engine: Engine;
  /** Every available backend but the reference. */
  readonly backends: readonly BackendUnderTest[];

  private constructor(engine: Engine) {
    this.engine = engine;
    this.backends = engine.backends().filter((b) => b.available && b.name !== 'reference').map((b) => ({ name: b.name, gpu: b.kind === 'gpu' }));
  }

  /** Starts every backend the conformance suite runs here. */
  static async create(): Promise<AgreementBench> {
    return new AgreementBench(await Engine.create({ backends: await availableBackends() }));
  }

  /** The first output of `op` run on `backend` alone, as numbers (f16 outputs decoded). */
  async outputOn(op: Op<Tensor>, backend: string): Promise<Float32Array> {
    const [out] = await this.engine.run(op, { strategy: { only: backend } });
    if (out === undefined) throw new Error('no output');
    const values = await out.read();
    out.dispose();
    if (values instanceof Uint16Array) return Float32Array.from(values, halfToFloat);
    if (!(values instanceof Float32Array)) throw new Error(`expected f32 or f16, got ${values.constructor.name}`);
    return values;
  }

  /** Every output of `op` run on `backend` alone, read back. */
  async allOutputsOn(op: Op<Tensor>, backend: string): Promise<HostArray[]> {
    const outputs = await this.engine.run(op, { strategy: { only: backend } });
    const values = await Promise.all(outputs.map((o) => o.read()));
    for (const o of outputs) o.dispose();
    return values;
  }

  /** Runs the op built by `build` on every backend against the reference; GPU backends get flushed inputs; throws on disagreement. */
  async checkEveryBackend(build: (flush: boolean) => { op: Op<Tensor>; inputs: Tensor[] }, tolerance: Tolerance, rule: NonFiniteRule = 'exact'): Promise<void> {
    for (const flush of [false, true]) {
      const chosen = this.backends.filter((b) => b.gpu === flush);
      if (chosen.length === 0) continue;
      const { op, inputs } = build(flush);
      const want = await this.outputOn(op, 'reference');
      for (const backend of chosen) {
        const got = await this.outputOn(op, backend.name);
        const problem = agree(flush ? flushed(got) : got, want, tolerance, rule);
        if (problem !== undefined) throw new Error(`${op.op} on ${backend.name}${flush ? ' (subnormal inputs flushed)' : ''}: ${problem}`);
      }
      for (const t of inputs) t.dispose();
    }
  }

  /** An f32 tensor of `values` (subnormals flushed when `flush`). */
  f32(values: ArrayLike<number>, shape: readonly number[], flush: boolean): Tensor {
    return this.engine.tensor(flush ? flushed(values) : Float32Array.from(values), shape);
  }

  /** Frees every backend. */
  async dispose(): Promise<void> {
    await this.engine.dispose();
  }
}
