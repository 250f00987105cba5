// Tensors belong to their engine (issue 32): device buffers are keyed by backend name and an id that restarts in
// every engine, so engine B binding engine A's tensor would read B's own buffer of that id (the matmul of
// [[1, 2], [3, 4]] printed [20000, 20000, 20000, 20000]). Every way in is refused with a typed error naming the
// argument, before any backend is asked; graphs check their constants and inputs the same way.
import { describe, expect, it, vi } from 'vitest';
import { DisposedError, Engine, InvalidArgumentError, type Tensor } from '@tandem/core';
import { GraphBuilder, GraphRunError, GraphValidationError } from '@tandem/graph';
import { ReferenceBackend } from '@tandem/reference';

/** Two engines, each over its own reference backend, with spies on what reaches B's. */
async function twoEngines() {
  const a = await Engine.create({ backends: [new ReferenceBackend()] });
  const backendB = new ReferenceBackend();
  const b = await Engine.create({ backends: [backendB] });
  return { a, b, run: vi.spyOn(backendB, 'run'), upload: vi.spyOn(backendB, 'upload') };
}

/** The InvalidArgumentError `call` rejects with (fails the test otherwise). */
async function refusal(call: () => Promise<unknown>): Promise<InvalidArgumentError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidArgumentError);
  if (!(error instanceof InvalidArgumentError)) throw new Error('not refused');
  return error;
}

describe('a tensor from another engine is refused, never bound', () => {
  it("the issue's case: B's buffers hold other data under the same ids, and B refuses A's tensor by name", async () => {
    const { a, b, run, upload } = await twoEngines();
    const mine = a.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]);
    await (await a.matmul(mine, mine)).read(); // A's tensor now has a replica on A's reference, id 1
    const theirs = b.tensor(new Float32Array(4).fill(100), [2, 2]);
    await (await b.matmul(theirs, theirs)).read(); // B's reference holds buffers with the same ids
    run.mockClear();
    upload.mockClear();
    const error = await refusal(() => b.matmul(theirs, mine));
    expect(error.argument).toBe('matmul.b');
    expect(error.message).toMatch(/belongs to another engine \(engine \d+; this is engine \d+\)/);
    expect((await refusal(() => b.matmul(mine, theirs))).argument).toBe('matmul.a');
    expect(() => b.explain({ op: 'matmul', a: mine, b: theirs })).toThrow(/matmul\.a = .*belongs to another engine/);
    expect(run).not.toHaveBeenCalled();
    expect(upload).not.toHaveBeenCalled();
    // The defined way across: read it and make a tensor on B.
    const copied = b.tensor(await mine.read(), [2, 2]);
    expect(await (await b.matmul(copied, copied)).read()).toEqual(new Float32Array([7, 10, 15, 22]));
  });

  it("refuses A's views and op outputs, every op input by name, and A's tensors after A is disposed", async () => {
    const { a, b, run } = await twoEngines();
    const x = a.tensor(
      Float32Array.from({ length: 6 }, (_, i) => i),
      [2, 3],
    );
    const out = await a.scale(x, 2);
    const own = b.tensor(new Float32Array(6), [2, 3]);
    for (const [foreign, what] of [
      [x.reshape([3, 2]).reshape([2, 3]), 'a reshape'],
      [x.transpose().transpose(), 'a permuted view'],
      [out, 'an op output'],
    ] as const) {
      expect((await refusal(() => b.add(own, foreign))).argument, what).toBe('add.b');
    }
    expect((await refusal(() => b.run({ op: 'concat', a: own, b: x.slice(0, 1) }))).argument).toBe('concat.b');
    expect((await refusal(() => b.rmsNorm(own, { weight: a.tensor(new Float32Array(3), [3]) }))).argument).toBe(
      'rmsNorm.weight',
    );
    await a.dispose();
    expect((await refusal(() => b.add(own, x))).argument).toBe('add.b');
    expect(run).not.toHaveBeenCalled();
  });

  it('engine.checkTensor says what run() would: foreign, not a tensor, disposed', async () => {
    const { a, b } = await twoEngines();
    const own = b.tensor(new Float32Array(1), [1]);
    expect(() => b.checkTensor('w', own)).not.toThrow();
    expect(() => b.checkTensor('w', a.tensor(new Float32Array(1), [1]))).toThrow(/^w = .*belongs to another engine/);
    own.dispose();
    expect(() => b.checkTensor('w', own)).toThrow(DisposedError);
  });
});

describe('graphs: constants and run inputs from another engine are refused', () => {
  it('a constant made on another engine is a GraphValidationError naming the constant', async () => {
    const { a, b } = await twoEngines();
    const builder = new GraphBuilder(b);
    const error = (() => {
      try {
        builder.constant('w', a.tensor(new Float32Array(4), [2, 2]));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(GraphValidationError);
    if (!(error instanceof GraphValidationError)) return;
    expect(error.node).toBe('w');
    expect(error.cause).toBeInstanceOf(InvalidArgumentError);
    expect(error.message).toMatch(/belongs to another engine/);
    // The name was not taken by the refused constant.
    expect(() => builder.constant('w', b.tensor(new Float32Array(4), [2, 2]))).not.toThrow();
  });

  it("a run given another engine's tensor is a GraphRunError naming the input; nothing runs", async () => {
    const { a, b, run } = await twoEngines();
    const builder = new GraphBuilder(b, { name: 'g' });
    const x = builder.input('x', 'f32', [2, 2]);
    builder.output('y', builder.scale('y', x, 2));
    const graph = builder.build();
    const foreign: Tensor = a.tensor(new Float32Array(4), [2, 2]);
    const error = await graph.run({ x: foreign }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GraphRunError);
    if (!(error instanceof GraphRunError)) return;
    expect(error.node).toBe('g.inputs.x');
    expect(error.message).toMatch(/belongs to another engine/);
    expect(run).not.toHaveBeenCalled();
    const { outputs } = await graph.run({ x: b.tensor(new Float32Array([1, 2, 3, 4]), [2, 2]) });
    expect(await outputs.get('y').read()).toEqual(new Float32Array([2, 4, 6, 8]));
  });
});
