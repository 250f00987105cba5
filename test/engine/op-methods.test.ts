// Every op method of the Engine, called as a user calls it, with and without its options: the op it builds (the
// defaults included: softmax not causal, rmsNorm eps 1e-5 and no weight, rope at position 0 with base 10000 in the
// interleaved pairing, attention not causal with scale 1/sqrt(D)) and its result, equal to @tandem/reference's
// kernel on the same values; copyTimes, what the engine learned of a backend's copies; and the lifecycle methods
// (init on a constructed engine, checkTensor, dispose through `await using`).
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BackendError,
  DisposedError,
  Engine,
  InvalidArgumentError,
  mapOpTensors,
  OP_DEFINITIONS,
  quantizeAs,
  type BoundTensor,
  type Op,
  type RunResult,
  type TensorSpec,
} from '@tandem/core';
import * as reference from '@tandem/reference';
import { ManualClock, SimulatedBackend } from '@tandem/testing';

/** The reference backend, recording each op it runs as specs (dtype and shape) with its parameters. */
class RecordingReference extends reference.ReferenceBackend {
  /** Ops run, in order. */
  readonly ops: Array<Op<TensorSpec>> = [];

  /** Records the op, then runs it. */
  override async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    this.ops.push(mapOpTensors(op, (t): TensorSpec => ({ dtype: t.dtype, shape: t.shape })));
    return super.run(op, outputs);
  }
}

/** Values 1..n scaled into a small range, as f32. */
function values(n: number, scale = 0.25): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => ((i % 7) - 3) * scale + i / (4 * n));
}

async function setup(): Promise<{ engine: Engine; backend: RecordingReference }> {
  const backend = new RecordingReference();
  return { engine: await Engine.create({ backends: [backend] }), backend };
}

describe('Engine op methods: the op built, its defaults, the result', () => {
  it("matmul, add, mul, scale, silu, gelu, swiglu, cosineSimilarity: the reference kernels' results", async () => {
    const { engine } = await setup();
    const [a, b] = [values(6), values(12, 0.5)];
    const ta = engine.tensor(a, [2, 3]);
    expect(await (await engine.matmul(ta, engine.tensor(b, [3, 4]))).read()).toEqual(reference.matmul(a, b, 2, 3, 4));
    expect(await (await engine.add(ta, engine.tensor(b.subarray(0, 3), [3]))).read()).toEqual(
      reference.add(a, b.subarray(0, 3)),
    );
    expect(await (await engine.mul(ta, ta)).read()).toEqual(reference.mul(a, a));
    expect(await (await engine.scale(ta, -2.5)).read()).toEqual(reference.scale(a, -2.5));
    expect(await (await engine.silu(ta)).read()).toEqual(reference.silu(a));
    expect(await (await engine.gelu(ta)).read()).toEqual(reference.gelu(a));
    expect(await (await engine.swiglu(ta, ta)).read()).toEqual(reference.swiglu(a, a));
    expect(await (await engine.cosineSimilarity(ta, engine.tensor(b, [4, 3]))).read()).toEqual(
      reference.cosineSimilarity(a, b, 2, 4, 3),
    );
    await engine.dispose();
  });

  it('softmax: not causal by default; causal when asked', async () => {
    const { engine, backend } = await setup();
    const x = values(12);
    const t = engine.tensor(x, [3, 4]);
    expect(await (await engine.softmax(t)).read()).toEqual(reference.softmax(x, 3, 4, false));
    expect(await (await engine.softmax(t, { causal: true })).read()).toEqual(reference.softmax(x, 3, 4, true));
    expect(backend.ops.map((op) => (op.op === 'softmax' ? op.causal : undefined))).toEqual([false, true]);
    await engine.dispose();
  });

  it('rmsNorm: eps 1e-5 and no weight by default; the weight and eps given otherwise', async () => {
    const { engine, backend } = await setup();
    const [x, w] = [values(8), values(4, 2)];
    const t = engine.tensor(x, [2, 4]);
    expect(await (await engine.rmsNorm(t)).read()).toEqual(reference.rmsNorm(x, 4, undefined, 1e-5));
    expect(await (await engine.rmsNorm(t, { weight: engine.tensor(w, [4]), eps: 0.5 })).read()).toEqual(
      reference.rmsNorm(x, 4, w, 0.5),
    );
    expect(backend.ops.map((op) => (op.op === 'rmsNorm' ? [op.eps, op.weight?.shape] : undefined))).toEqual([
      [1e-5, undefined],
      [0.5, [4]],
    ]);
    await engine.dispose();
  });

  it('rope: position 0, base 10000, interleaved by default; each option given otherwise', async () => {
    const { engine, backend } = await setup();
    const x = values(2 * 2 * 8);
    const t = engine.tensor(x, [2, 2, 8]);
    const dims = { seq: 2, heads: 2, headDim: 8 };
    expect(await (await engine.rope(t)).read()).toEqual(
      reference.rope(x, { ...dims, positionOffset: 0, base: 10000, mode: 'interleaved' }),
    );
    expect(await (await engine.rope(t, { positionOffset: 5, base: 500, mode: 'neox' })).read()).toEqual(
      reference.rope(x, { ...dims, positionOffset: 5, base: 500, mode: 'neox' }),
    );
    expect(backend.ops.map((op) => (op.op === 'rope' ? [op.positionOffset, op.base, op.mode] : undefined))).toEqual([
      [0, 10000, 'interleaved'],
      [5, 500, 'neox'],
    ]);
    await engine.dispose();
  });

  it('attention: not causal, scale 1/sqrt(D) by default; causal and an explicit scale when given', async () => {
    const { engine, backend } = await setup();
    const dims = { sq: 3, sk: 5, heads: 4, kvHeads: 2, headDim: 8 };
    const [q, k, v] = [values(3 * 4 * 8), values(5 * 2 * 8, 0.5), values(5 * 2 * 8, 0.125)];
    const [tq, tk, tv] = [engine.tensor(q, [3, 4, 8]), engine.tensor(k, [5, 2, 8]), engine.tensor(v, [5, 2, 8])];
    const plain = await (await engine.attention(tq, tk, tv)).read();
    expect(plain).toEqual(reference.attention(q, k, v, dims, false, undefined));
    expect(plain).toEqual(reference.attention(q, k, v, dims, false, 1 / Math.sqrt(8)));
    expect(await (await engine.attention(tq, tk, tv, { causal: true, scale: 0.3 })).read()).toEqual(
      reference.attention(q, k, v, dims, true, 0.3),
    );
    expect(backend.ops.map((op) => (op.op === 'attention' ? [op.causal, op.scale] : undefined))).toEqual([
      [false, undefined],
      [true, 0.3],
    ]);
    await engine.dispose();
  });

  it('topK: values and indices, each [rows, k]', async () => {
    const { engine } = await setup();
    const x = Float32Array.of(3, 1, 4, 1, 5, 9, 2, 6);
    const { values: top, indices } = await engine.topK(engine.tensor(x, [2, 4]), 2);
    const want = reference.topK(x, 2, 4, 2);
    expect([top.shape, indices.shape, indices.dtype]).toEqual([[2, 2], [2, 2], 'i32']);
    expect(await top.read()).toEqual(want.values);
    expect(await indices.read()).toEqual(want.indices);
    expect(Array.from(want.indices)).toEqual([2, 0, 1, 3]); // 4 > 3 in row 0; 9 > 6 in row 1
    await engine.dispose();
  });

  it('dequantize and quantizedMatmul: q8_0 and q4_0 weights expanded exactly, as the reference does', async () => {
    const { engine } = await setup();
    const [x, w] = [values(2 * 32), values(3 * 32, 1.5)];
    for (const dtype of ['q8_0', 'q4_0'] as const) {
      const bytes = quantizeAs(dtype, w);
      const tw = engine.tensor(bytes, [3, 32], dtype);
      expect(await (await engine.dequantize(tw)).read()).toEqual(reference.dequantize(dtype, bytes, 3 * 32));
      expect(await (await engine.quantizedMatmul(engine.tensor(x, [2, 32]), tw)).read()).toEqual(
        reference.quantizedMatmul(x, bytes, dtype, 2, 32, 3),
      );
    }
    await engine.dispose();
  });

  it('spreadActivation: the graph and the options it is given (no defaults), as the reference kernel', async () => {
    const { engine, backend } = await setup();
    const graph = {
      rowPtr: Uint32Array.of(0, 2, 3, 3),
      colIdx: Uint32Array.of(1, 2, 2),
      weights: Float32Array.of(0.5, 1, 2),
    };
    const initial = Float32Array.of(1, 0, 0);
    const tensors = {
      rowPtr: engine.tensor(graph.rowPtr, [4]),
      colIdx: engine.tensor(graph.colIdx, [3]),
      weights: engine.tensor(graph.weights, [3]),
    };
    const out = await engine.spreadActivation(tensors, engine.tensor(initial, [3]), {
      decay: 0.5,
      threshold: 0.1,
      iterations: 2,
    });
    expect(await out.read()).toEqual(
      reference.spreadActivation(graph, initial, { decay: 0.5, threshold: 0.1, iterations: 2 }),
    );
    expect(Array.from(await out.read())).toEqual([1, 0.5, 1.25]);
    expect(
      backend.ops.map((op) => (op.op === 'spreadActivation' ? [op.decay, op.threshold, op.iterations] : undefined)),
    ).toEqual([[0.5, 0.1, 2]]);
    await engine.dispose();
  });
});

describe('Engine.copyTimes', () => {
  it("is empty before any copy, then holds each size class's typical bytes and time of the copies made", async () => {
    const clock = new ManualClock();
    const gpu = new SimulatedBackend({ name: 'gpu', kind: 'gpu', latencyMs: () => 1, clock, transferBytesPerMs: 1024 });
    const engine = await Engine.create({ backends: [gpu], clock: clock.clock });
    expect(engine.copyTimes('gpu')).toEqual({ upload: [], download: [] });
    for (let i = 0; i < 6; i++) {
      const x = engine.tensor(new Float32Array(1024), [1024]); // 4096 bytes up: 4 ms on the simulated bus
      const out = await engine.scale(x, 2);
      await out.read(); // 4096 bytes down: 4 ms
      x.dispose();
    }
    const learned = engine.copyTimes('gpu');
    expect(learned.upload).toEqual([{ bytes: 4096, ms: 4 }]);
    expect(learned.download).toEqual([{ bytes: 4096, ms: 4 }]);
    await engine.dispose();
  });
});

describe('Engine lifecycle methods', () => {
  it('a constructed engine lists its backends as not yet available until init(), then ready', async () => {
    const engine = new Engine({ backends: [new reference.ReferenceBackend()] });
    expect(engine.backends().map((b) => [b.name, b.available])).toEqual([['reference', false]]);
    await engine.init();
    expect(engine.backends().map((b) => [b.name, b.available, b.unavailableReason])).toEqual([
      ['reference', true, undefined],
    ]);
    expect(await (await engine.scale(engine.tensor([1, 2], [2]), 3)).read()).toEqual(Float32Array.of(3, 6));
    await engine.dispose();
  });

  it("checkTensor accepts its own live tensors and refuses another engine's or a disposed one, naming the argument", async () => {
    const { engine } = await setup();
    const { engine: other } = await setup();
    const mine = engine.tensor([1], [1]);
    expect(() => engine.checkTensor('graph.constant', mine)).not.toThrow();
    const theirs = other.tensor([1], [1]);
    expect(() => engine.checkTensor('graph.constant', theirs)).toThrow(InvalidArgumentError);
    expect(() => engine.checkTensor('graph.constant', theirs)).toThrow(
      /^graph\.constant = .*belongs to another engine/,
    );
    mine.dispose();
    expect(() => engine.checkTensor('graph.constant', mine)).toThrow(DisposedError);
    await Promise.all([engine.dispose(), other.dispose()]);
  });

  it('`await using` disposes the engine at the end of its block: its backends are freed and it refuses new tensors', async () => {
    const backend = new reference.ReferenceBackend();
    let disposed = 0;
    const dispose = backend.dispose.bind(backend);
    backend.dispose = async () => {
      disposed++;
      await dispose();
    };
    let kept: Engine | undefined;
    {
      await using engine = await Engine.create({ backends: [backend] });
      kept = engine;
      expect(disposed).toBe(0);
    }
    expect(disposed).toBe(1);
    expect(() => kept?.tensor([1], [1])).toThrow(DisposedError);
  });
});

describe('op methods check the outputs they return', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** An engine over the reference backend, with a 4 x 4 f32 input. */
  async function setup() {
    const engine = await Engine.create({ backends: [new reference.ReferenceBackend()] });
    return { engine, x: engine.tensor(new Float32Array(16), [4, 4]) };
  }

  /** Makes op `kind` declare other outputs than its method promises (an op definition out of step with its method). */
  function declareOutputs(kind: 'add' | 'topK', rewrite: (specs: TensorSpec[]) => TensorSpec[]): void {
    const definition = OP_DEFINITIONS[kind] as { outputs: (op: never) => TensorSpec[] };
    const declared = definition.outputs.bind(definition);
    vi.spyOn(definition, 'outputs').mockImplementation((op: never) => rewrite(declared(op)));
  }

  it('an op method whose op yields no output rejects with BAD_OUTPUT from the engine, naming the op', async () => {
    const { engine, x } = await setup();
    declareOutputs('add', () => []);
    const error = await engine.add(x, x).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'BAD_OUTPUT', backend: 'engine', message: '[engine] add returned no output' });
  });

  it('an op method whose output has another dtype than it promises rejects with BAD_OUTPUT, naming both dtypes', async () => {
    const { engine, x } = await setup();
    declareOutputs('add', (specs) => specs.map((s) => ({ ...s, dtype: 'i32' })));
    const error = await engine.add(x, x).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({
      code: 'BAD_OUTPUT',
      backend: 'engine',
      message: '[engine] add returned a i32 tensor where f32 was due',
    });
  });

  it('topK rejects with BAD_OUTPUT when its op yields fewer than two outputs, or values of another dtype', async () => {
    const { engine, x } = await setup();
    declareOutputs('topK', (specs) => specs.slice(0, 1));
    const short = await engine.topK(x, 2).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(BackendError);
    expect(short).toMatchObject({
      code: 'BAD_OUTPUT',
      backend: 'engine',
      message: '[engine] topK returned fewer than two outputs',
    });
    vi.restoreAllMocks();
    declareOutputs('topK', (specs) => specs.map((s) => ({ ...s, dtype: 'i32' })));
    const wrong = await engine.topK(x, 2).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(BackendError);
    expect(wrong).toMatchObject({
      code: 'BAD_OUTPUT',
      backend: 'engine',
      message: '[engine] topK returned a i32 tensor where f32 was due',
    });
    vi.restoreAllMocks();
    const { values, indices } = await engine.topK(x, 2); // the definition as shipped
    expect([values.dtype, indices.dtype]).toEqual(['f32', 'i32']);
  });
});
