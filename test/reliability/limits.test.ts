// Limits before work (issue 32): an op whose output is past the element limit, or needs more memory than any backend
// able to run it has free, is refused before any backend is asked; the reference has a memory budget; zero-size
// dimensions follow one rule (README "Bad input and limits").
import { describe, expect, it, vi } from 'vitest';
import {
  AllBackendsFailedError,
  Engine,
  InvalidArgumentError,
  MAX_ELEMENTS,
  OutOfMemoryError,
  ResourceExhaustedError,
  type BoundTensor,
  type Op,
  type Tensor,
} from '@tandem/core';
import { DEFAULT_REFERENCE_MEMORY_BYTES, ReferenceBackend } from '@tandem/reference';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { createEngine } from 'tandem';

/** The rejection of `call`, or a failure when it resolves. */
async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to be refused');
}

/** An engine over one reference backend with `memoryBytes`, and counters of what reached it. */
async function referenceEngine(memoryBytes?: number) {
  const reference = new ReferenceBackend(memoryBytes === undefined ? {} : { memoryBytes });
  const run = vi.spyOn(reference, 'run');
  const upload = vi.spyOn(reference, 'upload');
  const engine = await Engine.create({ backends: [reference] });
  return { engine, reference, run, upload };
}

/** The smallest n whose square is past the element limit (46341). */
const PAST_SQRT = Math.ceil(Math.sqrt(MAX_ELEMENTS + 1));

describe('outputs past the element limit are refused before any backend is asked', () => {
  it("the issue's [46341, 1] x [1, 46341] and [2^20, 0] x [0, 2^12] matmuls, on the default CPU engine", async () => {
    const engine = await createEngine({ forceCpu: true });
    const a = engine.tensor(new Float32Array(PAST_SQRT).fill(1), [PAST_SQRT, 1]);
    const b = engine.tensor(new Float32Array(PAST_SQRT).fill(1), [1, PAST_SQRT]);
    for (const [x, y] of [
      [a, b],
      [engine.tensor(new Float32Array(0), [2 ** 20, 0]), engine.tensor(new Float32Array(0), [0, 2 ** 12])],
    ] as const) {
      const rssBefore = process.memoryUsage().rss;
      const error = await rejection(() => engine.matmul(x, y));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      if (!(error instanceof InvalidArgumentError)) return;
      expect(error.argument).toBe('matmul.output.shape');
      expect(error.value).toEqual([x.shape[0], y.shape[1]]);
      expect(error.message).toContain(`the limit is ${MAX_ELEMENTS}`);
      expect(() => engine.explain({ op: 'matmul', a: x, b: y })).toThrow(InvalidArgumentError);
      // Refused without allocating the output (2^31 + 4633 floats would be 8 GiB).
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(byteCount(x) + byteCount(y) + 64 * 2 ** 20);
    }
    expect(engine.telemetry.summary().totalOps).toBe(0);
    await engine.dispose();
  });

  // Inputs with a zero dimension hold no bytes, so outputs past the limit are cheap to ask for.
  const outputCases: Array<[string, (e: Engine) => Op<Tensor>, string]> = [
    [
      'matmul',
      (e) => ({
        op: 'matmul',
        a: e.tensor(new Float32Array(0), [2 ** 20, 0]),
        b: e.tensor(new Float32Array(0), [0, 2 ** 12]),
      }),
      'matmul.output.shape',
    ],
    [
      'quantizedMatmul',
      (e) => ({
        op: 'quantizedMatmul',
        x: e.tensor(new Float32Array(0), [2 ** 20, 0]),
        w: e.tensor(new Uint8Array(0), [2 ** 12, 0], 'q8_0'),
      }),
      'quantizedMatmul.output.shape',
    ],
    [
      'cosineSimilarity',
      (e) => ({
        op: 'cosineSimilarity',
        queries: e.tensor(new Float32Array(0), [PAST_SQRT, 0]),
        targets: e.tensor(new Float32Array(0), [PAST_SQRT, 0]),
      }),
      'cosineSimilarity.output.shape',
    ],
    [
      'concat',
      (e) => ({
        op: 'concat',
        a: e.tensor(new Float32Array(0), [MAX_ELEMENTS, 0]),
        b: e.tensor(new Float32Array(0), [1, 0]),
      }),
      'concat.output.shape',
    ],
  ];
  for (const [name, build, argument] of outputCases) {
    it(`${name}: ${argument}`, async () => {
      const clock = new ManualClock();
      const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
      const engine = await Engine.create({ backends: [cpu], clock: clock.clock });
      const error = await rejection(() => engine.run(build(engine)));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      if (error instanceof InvalidArgumentError) expect(error.argument).toBe(argument);
      expect(cpu.calls).toBe(0);
    });
  }
});

describe('memory: the reference has a budget, and an op no backend has room for is a ResourceExhaustedError', () => {
  it('the reference reports its budget and what its buffers leave free', async () => {
    expect(new ReferenceBackend().availableMemory()).toBe(DEFAULT_REFERENCE_MEMORY_BYTES);
    const { engine, reference } = await referenceEngine(1 << 20);
    expect(reference.describe()).toMatchObject({ memoryBytes: 1 << 20, availableMemoryBytes: 1 << 20 });
    const x = engine.tensor(new Float32Array(1024), [32, 32]);
    const y = await engine.matmul(x, x);
    expect(reference.availableMemory()).toBe((1 << 20) - 2 * 4096); // x uploaded, y computed there
    y.dispose();
    x.dispose();
    expect(reference.availableMemory()).toBe(1 << 20);
    expect(() => new ReferenceBackend({ memoryBytes: -1 })).toThrow(InvalidArgumentError);
  });

  it('an output that does not fit the budget is refused before the reference is asked, naming the op, shapes and limit', async () => {
    const { engine, run, upload } = await referenceEngine(1 << 20);
    const a = engine.tensor(new Float32Array(1024), [1024, 1]);
    const b = engine.tensor(new Float32Array(1024), [1, 1024]);
    const error = await rejection(() => engine.matmul(a, b)); // 4 MiB of output in a 1 MiB budget
    expect(error).toBeInstanceOf(ResourceExhaustedError);
    if (!(error instanceof ResourceExhaustedError)) return;
    expect(error.code).toBe('RESOURCE_EXHAUSTED');
    expect(error.requiredBytes).toBe(4 * 1024 * 1024 + 2 * 4096);
    expect(error.availableBytes).toBe(1 << 20);
    expect(error.message).toContain('matmul (a f32 [1024, 1], b f32 [1, 1024])');
    expect(run).not.toHaveBeenCalled();
    expect(upload).not.toHaveBeenCalled();
    expect(() => engine.explain({ op: 'matmul', a, b })).toThrow(ResourceExhaustedError);
    expect(engine.trackerStats()).toEqual([]); // nothing ran, nothing failed
  });

  it("counts the reference's scratch: a quantized matmul's weights expanded to f32", async () => {
    const reference = new ReferenceBackend();
    const x = { dtype: 'f32', shape: [1, 64] } as const;
    const w = { dtype: 'q8_0', shape: [100, 64] } as const;
    expect(reference.scratchBytes({ op: 'quantizedMatmul', x, w }, [{ dtype: 'f32', shape: [1, 100] }])).toBe(
      100 * 64 * 4,
    );
    // Weights of 100 x 64 q8_0 (6,800 bytes) fit a 30,000-byte budget; expanded (25,600 more) they do not.
    const { engine, run } = await referenceEngine(30_000);
    const error = await rejection(() =>
      engine.quantizedMatmul(
        engine.tensor(new Float32Array(64), [1, 64]),
        engine.tensor(new Uint8Array(100 * 2 * 34), [100, 64], 'q8_0'),
      ),
    );
    expect(error).toBeInstanceOf(ResourceExhaustedError);
    expect(run).not.toHaveBeenCalled();
  });

  it('a plan cached for a small call of the same flops is not reused for one past the budget (matmul with K = 0, concat: 0 flops at any size)', async () => {
    const { engine, run } = await referenceEngine(1 << 20);
    const empty = (shape: number[]): Tensor<'f32'> => engine.tensor(new Float32Array(0), shape);
    for (let i = 0; i < 8; i++) (await engine.matmul(empty([8, 0]), empty([0, 8]))).dispose(); // measured: its plan is reused
    for (let i = 0; i < 8; i++)
      (await engine.run({ op: 'concat', a: empty([8, 0]), b: empty([8, 0]) })).forEach((t) => {
        t.dispose();
      });
    run.mockClear();
    await expect(engine.matmul(empty([1024, 0]), empty([0, 1024]))).rejects.toThrow(ResourceExhaustedError); // 4 MiB of zeros
    const rows = engine.tensor(new Float32Array(100_000), [100_000, 1]);
    await expect(engine.run({ op: 'concat', a: rows, b: rows })).rejects.toThrow(ResourceExhaustedError); // 0.8 MB uploaded + 0.8 MB out
    expect(run).not.toHaveBeenCalled();
  });

  it('a reference asked directly past its budget throws OutOfMemoryError before allocating', async () => {
    const reference = new ReferenceBackend({ memoryBytes: 80 });
    await expect(reference.upload(new Uint8Array(81), { dtype: 'f32', shape: [25] })).rejects.toThrow(OutOfMemoryError);
    const a = await reference.upload(new Uint8Array(16), { dtype: 'f32', shape: [4, 1] });
    const b = await reference.upload(new Uint8Array(16), { dtype: 'f32', shape: [1, 4] });
    const op: Op<BoundTensor> = {
      op: 'matmul',
      a: { dtype: 'f32', shape: [4, 1], buffer: a },
      b: { dtype: 'f32', shape: [1, 4], buffer: b },
    };
    // 32 bytes held, 48 free: the 64-byte output is refused.
    await expect(reference.run(op, [{ dtype: 'f32', shape: [4, 4] }])).rejects.toThrow(OutOfMemoryError);
    expect(reference.availableMemory()).toBe(48);
  });

  it('a GPU short of memory falls to the CPU; with no other backend it is a ResourceExhaustedError, not a backend failure', async () => {
    const clock = new ManualClock();
    const gpu = new SimulatedBackend({
      name: 'gpu',
      kind: 'gpu',
      clock,
      latencyMs: () => 1,
      availableMemoryBytes: 1000,
    });
    const cpu = new SimulatedBackend({ name: 'cpu', kind: 'cpu', clock, latencyMs: () => 1 });
    const both = await Engine.create({ backends: [gpu, cpu], clock: clock.clock });
    const x = both.tensor(new Float32Array(1024), [32, 32]);
    expect(both.explain({ op: 'matmul', a: x, b: x }, { strategy: 'gpu-preferred' }).selection.backend).toBe('cpu');
    const gpuOnly = await Engine.create({ backends: [gpu], clock: clock.clock });
    const y = gpuOnly.tensor(new Float32Array(1024), [32, 32]);
    await expect(gpuOnly.matmul(y, y)).rejects.toThrow(ResourceExhaustedError);
    // A backend that cannot take the op for another reason is still an AllBackendsFailedError.
    const noMatmul = new SimulatedBackend({
      name: 'cpu',
      kind: 'cpu',
      clock,
      latencyMs: () => 1,
      capabilities: [{ op: 'add', dtypes: ['f32'] }],
    });
    const other = await Engine.create({ backends: [noMatmul], clock: clock.clock });
    const z = other.tensor(new Float32Array(4), [2, 2]);
    await expect(other.matmul(z, z)).rejects.toThrow(AllBackendsFailedError);
  });
});

describe('zero-size dimensions: allowed; empty outputs, and the empty sum is 0', () => {
  it('matmul with K = 0 gives zeros; M = 0 or N = 0 gives an empty result', async () => {
    const { engine } = await referenceEngine();
    const zeros = await engine.matmul(
      engine.tensor(new Float32Array(0), [3, 0]),
      engine.tensor(new Float32Array(0), [0, 4]),
    );
    expect(zeros.shape).toEqual([3, 4]);
    expect(await zeros.read()).toEqual(new Float32Array(12));
    const empty = await engine.matmul(
      engine.tensor(new Float32Array(0), [0, 5]),
      engine.tensor(new Float32Array(15), [5, 3]),
    );
    expect(empty.shape).toEqual([0, 3]);
    expect(await empty.read()).toEqual(new Float32Array(0));
  });

  it('cosineSimilarity over D = 0 scores 0 (zero vectors), attention over Sk = 0 gives zeros, softmax of empty rows is empty', async () => {
    const { engine } = await referenceEngine();
    const scores = await engine.cosineSimilarity(
      engine.tensor(new Float32Array(0), [2, 0]),
      engine.tensor(new Float32Array(0), [3, 0]),
    );
    expect(await scores.read()).toEqual(new Float32Array(6));
    const q = engine.tensor(new Float32Array(2 * 2 * 4).fill(1), [2, 2, 4]);
    const kv = engine.tensor(new Float32Array(0), [0, 2, 4]);
    expect(await (await engine.attention(q, kv, kv)).read()).toEqual(new Float32Array(16));
    const soft = await engine.softmax(engine.tensor(new Float32Array(0), [3, 0]));
    expect(soft.shape).toEqual([3, 0]);
  });

  it('a zero does not hide an out-of-range dimension: [2^40, 0] is refused', async () => {
    const { engine } = await referenceEngine();
    expect(() => engine.tensor(new Float32Array(0), [2 ** 40, 0])).toThrow(
      /tensor\.shape\[0\] = 1099511627776: must be a non-negative integer <= 2147483647/,
    );
    expect(() => engine.tensor(new Float32Array(0), [0, MAX_ELEMENTS + 1])).toThrow(InvalidArgumentError);
    expect(engine.tensor(new Float32Array(0), [MAX_ELEMENTS, 0]).size).toBe(0);
  });
});

function byteCount(t: Tensor): number {
  return t.storage.byteLength;
}
