// The mixed workload of the dispatch-accuracy suite: every op of the core set at sizes from tiny to large,
// with seeded inputs, built once per engine so every backend and `auto` see the same tensors.
import { createRng, quantizeQ4_0, quantizeQ8_0, type Engine, type Op, type Rng, type Tensor } from '@tandem/core';

/** One (op, size) of the workload. */
export interface DispatchCase {
  /** Readable name, e.g. 'matmul 256'. */
  readonly name: string;
  /** Op id. */
  readonly op: string;
  /** The call. */
  readonly call: Op<Tensor>;
}

function floats(rng: Rng, n: number): Float32Array {
  return rng.fillUniform(new Float32Array(n), -1, 1);
}

function f32(engine: Engine, rng: Rng, shape: readonly number[]): Tensor {
  return engine.tensor(
    floats(
      rng,
      shape.reduce((a, b) => a * b, 1),
    ),
    shape,
  );
}

/** A random CSR graph with `nodes` nodes and about `degree` out-edges each. */
function graph(
  engine: Engine,
  rng: Rng,
  nodes: number,
  degree: number,
): { rowPtr: Tensor; colIdx: Tensor; weights: Tensor; initial: Tensor } {
  const rowPtr = new Uint32Array(nodes + 1);
  const cols: number[] = [];
  for (let i = 0; i < nodes; i++) {
    for (let e = 0; e < degree; e++) cols.push(rng.int(0, nodes));
    rowPtr[i + 1] = cols.length;
  }
  const initial = new Float32Array(nodes);
  for (let i = 0; i < 16; i++) initial[rng.int(0, nodes)] = 1;
  return {
    rowPtr: engine.tensor(rowPtr, [nodes + 1]),
    colIdx: engine.tensor(Uint32Array.from(cols), [cols.length]),
    weights: engine.tensor(rng.fillUniform(new Float32Array(cols.length), 0.1, 1), [cols.length]),
    initial: engine.tensor(initial, [nodes]),
  };
}

/** The workload: 15 ops, 2-5 sizes each. */
export function dispatchCases(engine: Engine, seed = 7): DispatchCase[] {
  const rng = createRng(seed);
  const cases: DispatchCase[] = [];
  const add = (name: string, call: Op<Tensor>): void => {
    cases.push({ name, op: call.op, call });
  };
  for (const n of [16, 64, 128, 256, 512]) {
    const a = f32(engine, rng, [n, n]);
    add(`matmul ${n}`, { op: 'matmul', a, b: f32(engine, rng, [n, n]) });
  }
  for (const [m, k] of [
    [1, 1024],
    [1, 4096],
    [64, 1024],
  ] as const) {
    const x = f32(engine, rng, [m, k]);
    add(`quantizedMatmul q4_0 ${m}x${k}x${k}`, {
      op: 'quantizedMatmul',
      x,
      w: engine.tensor(quantizeQ4_0(floats(rng, k * k)), [k, k], 'q4_0'),
    });
  }
  add('quantizedMatmul q8_0 1x2048x2048', {
    op: 'quantizedMatmul',
    x: f32(engine, rng, [1, 2048]),
    w: engine.tensor(quantizeQ8_0(floats(rng, 2048 * 2048)), [2048, 2048], 'q8_0'),
  });
  for (const n of [4096, 1 << 20])
    add(`dequantize q8_0 ${n}`, {
      op: 'dequantize',
      x: engine.tensor(quantizeQ8_0(floats(rng, n)), [n / 32, 32], 'q8_0'),
    });
  for (const rows of [1, 64, 1024]) {
    const shape = [rows, 1024];
    add(`add ${rows}x1024`, { op: 'add', a: f32(engine, rng, shape), b: f32(engine, rng, shape) });
    add(`mul ${rows}x1024`, { op: 'mul', a: f32(engine, rng, shape), b: f32(engine, rng, shape) });
    add(`scale ${rows}x1024`, { op: 'scale', x: f32(engine, rng, shape), factor: 0.5 });
    add(`softmax ${rows}x1024`, { op: 'softmax', x: f32(engine, rng, shape), causal: false });
    add(`rmsNorm ${rows}x1024`, {
      op: 'rmsNorm',
      x: f32(engine, rng, shape),
      weight: f32(engine, rng, [1024]),
      eps: 1e-5,
    });
    add(`silu ${rows}x1024`, { op: 'silu', x: f32(engine, rng, shape) });
    add(`swiglu ${rows}x1024`, { op: 'swiglu', gate: f32(engine, rng, shape), up: f32(engine, rng, shape) });
  }
  for (const seq of [1, 128, 512])
    add(`rope ${seq}x8x64`, {
      op: 'rope',
      x: f32(engine, rng, [seq, 8, 64]),
      positionOffset: 0,
      base: 10000,
      mode: 'interleaved',
    });
  for (const seq of [16, 128, 256]) {
    const qkv = (): Tensor => f32(engine, rng, [seq, 8, 64]);
    add(`attention ${seq}x8x64 causal`, {
      op: 'attention',
      q: qkv(),
      k: qkv(),
      v: qkv(),
      causal: true,
      scale: undefined,
    });
  }
  for (const [q, t] of [
    [1, 1024],
    [1, 16384],
    [64, 16384],
  ] as const) {
    add(`cosineSimilarity ${q}x768 vs ${t}`, {
      op: 'cosineSimilarity',
      queries: f32(engine, rng, [q, 768]),
      targets: f32(engine, rng, [t, 768]),
    });
  }
  for (const rows of [1, 64]) add(`topK ${rows}x16384 k=10`, { op: 'topK', x: f32(engine, rng, [rows, 16384]), k: 10 });
  for (const nodes of [1000, 100_000])
    add(`spreadActivation ${nodes} nodes x8 edges, 3 hops`, {
      op: 'spreadActivation',
      ...graph(engine, rng, nodes, 8),
      decay: 0.7,
      threshold: 0.01,
      iterations: 3,
    });
  return cases;
}
