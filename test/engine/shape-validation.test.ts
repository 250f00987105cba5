// Every shape entry point validates (issue 32): engine.tensor, Tensor.reshape / permute / slice, the graph builder's
// inputs, views and nodes, and run()'s op argument. Each mistake is an InvalidArgumentError (GraphValidationError
// in the builder) naming the argument, the value and the rule, never a TypeError or a tensor that reads as zeros.
import { describe, expect, it } from 'vitest';
import { Engine, InvalidArgumentError, MAX_ELEMENTS, MAX_RANK, type Tensor } from '@tandem/core';
import { GraphBuilder, GraphValidationError } from '@tandem/graph';
import { ReferenceBackend } from '@tandem/reference';

const engine = await Engine.create({ backends: [new ReferenceBackend()] });

/** What `fn` throws (fails the test when it returns). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** Expects an InvalidArgumentError for `argument` whose message matches `message`. */
function expectInvalid(error: unknown, argument: string, message: RegExp): void {
  expect(error).toBeInstanceOf(InvalidArgumentError);
  if (!(error instanceof InvalidArgumentError)) return;
  expect(error.argument).toBe(argument);
  expect(error.message).toMatch(message);
}

/** Arguments a TypeScript caller cannot pass but a JavaScript one can (Reflect.apply skips the types). */
function tensorFrom(...args: unknown[]): unknown {
  return Reflect.apply(engine.tensor, engine, args);
}

describe('engine.tensor', () => {
  const cases: Array<[string, unknown[], string, RegExp]> = [
    ['null data', [null, [2]], 'tensor.data', /null: must be a Float32Array or number\[\]/],
    ['a string as data', ['1234', [4]], 'tensor.data', /"1234": must be a Float32Array/],
    ['a number[] with a string in it', [[1, '2'], [2]], 'tensor.data[1]', /"2": must be a number/],
    ['a shape that is not an array', [new Float32Array(4), 4], 'tensor.shape', /4: must be an array of dimensions/],
    ['a null shape', [new Float32Array(4), null], 'tensor.shape', /null: must be an array/],
    ['a negative dimension', [new Float32Array(0), [-2, 3]], 'tensor.shape[0]', /-2: must be a non-negative integer/],
    ['a fractional dimension', [new Float32Array(6), [1.5, 4]], 'tensor.shape[0]', /1\.5/],
    ['a NaN dimension', [new Float32Array(0), [Number.NaN]], 'tensor.shape[0]', /NaN/],
    ['a string dimension', [new Float32Array(2), ['2']], 'tensor.shape[0]', /"2"/],
    [
      'a dimension past the limit hidden by a zero',
      [new Float32Array(0), [2 ** 40, 0]],
      'tensor.shape[0]',
      new RegExp(`<= ${MAX_ELEMENTS}`),
    ],
    [
      'too many elements',
      [new Float32Array(0), [65536, 65536]],
      'tensor.shape',
      new RegExp(`4294967296 elements; the limit is ${MAX_ELEMENTS}`),
    ],
    [
      'a rank past the limit',
      [new Float32Array(1), Array<number>(MAX_RANK + 1).fill(1)],
      'tensor.shape',
      new RegExp(`rank ${MAX_RANK + 1}; the limit is ${MAX_RANK}`),
    ],
    [
      'an unknown dtype, blamed on the dtype',
      [new Float32Array(2), [2], 'f64'],
      'tensor.dtype',
      /"f64": must be one of f32, f16, q8_0, q4_0, i32, u32/,
    ],
    [
      'a dtype the data does not carry',
      [new Int32Array(2), [2], 'f32'],
      'tensor.data',
      /Int32Array.*does not carry dtype f32/,
    ],
  ];
  for (const [name, args, argument, message] of cases) {
    it(name, () =>
      expectInvalid(
        thrown(() => tensorFrom(...args)),
        argument,
        message,
      ),
    );
  }

  it('accepts the limits themselves: rank MAX_RANK, a MAX_ELEMENTS dimension next to a zero', () => {
    expect(engine.tensor(new Float32Array(1), Array<number>(MAX_RANK).fill(1)).shape).toHaveLength(MAX_RANK);
    expect(engine.tensor(new Float32Array(0), [MAX_ELEMENTS, 0]).size).toBe(0);
  });
});

describe('views: reshape, permute, slice', () => {
  const t = (): Tensor =>
    engine.tensor(
      Float32Array.from({ length: 12 }, (_, i) => i),
      [3, 4],
    );
  const view = (name: 'reshape' | 'permute' | 'slice', ...args: unknown[]): unknown => {
    const x = t();
    return Reflect.apply(x[name], x, args);
  };
  const cases: Array<[string, () => unknown, string, RegExp]> = [
    [
      'reshape to a fractional shape',
      () => view('reshape', [1.5, 8]),
      'reshape.shape[0]',
      /1\.5: must be a non-negative integer/,
    ],
    ['reshape to negative dimensions whose product matches', () => view('reshape', [-2, -6]), 'reshape.shape[0]', /-2/],
    ['reshape to a non-array', () => view('reshape', 12), 'reshape.shape', /must be an array/],
    [
      'reshape past the rank limit',
      () => view('reshape', [12, ...Array<number>(MAX_RANK).fill(1)]),
      'reshape.shape',
      /rank 9/,
    ],
    ['permute with a non-array', () => view('permute', '10'), 'permute.axes', /must be an array/],
    ['permute with fractional axes', () => view('permute', [0.5, 1]), 'permute.axes', /permutation of 0\.\.1/],
    ['slice with a fractional start', () => view('slice', 0.5, 2), 'slice.start', /0\.5/],
    ['slice with a string end', () => view('slice', 0, '2'), 'slice.end', /"2"/],
  ];
  for (const [name, fn, argument, message] of cases) {
    it(name, () => expectInvalid(thrown(fn), argument, message));
  }

  it('a reshape that passes reads the same data', async () => {
    expect(await t().reshape([2, 6]).read()).toEqual(Float32Array.from({ length: 12 }, (_, i) => i));
  });
});

describe("run()'s op argument", () => {
  const run = (op: unknown): Promise<unknown> => Reflect.apply(engine.run, engine, [op]);
  const x = engine.tensor(new Float32Array(4), [2, 2]);
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['an unknown op', { op: 'frobnicate', x }, 'run.op.op', /"frobnicate": must be one of matmul, /],
    ['a missing op name', { x }, 'run.op.op', /undefined: must be one of/],
    ['null', null, 'run.op', /null: must be an op object/],
    ['a string', 'matmul', 'run.op', /"matmul": must be an op object/],
    ['a missing input', { op: 'matmul', a: x }, 'matmul.b', /undefined: must be a Tensor/],
    [
      'host data for an input',
      { op: 'add', a: x, b: new Float32Array(4) },
      'add.b',
      /"a Float32Array": must be a Tensor/,
    ],
  ];
  for (const [name, op, argument, message] of cases) {
    it(name, async () => {
      expectInvalid(await run(op).catch((e: unknown) => e), argument, message);
      expectInvalid(
        thrown(() => Reflect.apply(engine.explain, engine, [op])),
        argument.replace(/^run\./, 'explain.'),
        message,
      );
    });
  }
});

describe('the graph builder', () => {
  /** The GraphValidationError `fn` throws, with its cause's argument when it has one. */
  function graphError(fn: (g: GraphBuilder) => unknown): {
    node: string;
    message: string;
    argument: string | undefined;
  } {
    const error = thrown(() => fn(new GraphBuilder(engine)));
    expect(error).toBeInstanceOf(GraphValidationError);
    if (!(error instanceof GraphValidationError)) throw new Error('not a GraphValidationError');
    return {
      node: error.node,
      message: error.message,
      argument: error.cause instanceof InvalidArgumentError ? error.cause.argument : undefined,
    };
  }
  const input = (g: GraphBuilder) => g.input('x', 'f32', [3, 4]);

  it('inputs: shapes and dtypes', () => {
    expect(graphError((g) => g.input('x', 'f32', [2 ** 40, 0]))).toMatchObject({ node: 'x', argument: 'x.shape[0]' });
    expect(graphError((g) => g.input('x', 'f32', [-1]))).toMatchObject({ node: 'x', argument: 'x.shape[0]' });
    expect(graphError((g) => Reflect.apply(g.input, g, ['x', 'f32', 'oops']))).toMatchObject({
      node: 'x',
      argument: 'x.shape',
    });
    expect(graphError((g) => Reflect.apply(g.input, g, ['x', 'f64', [2]]))).toMatchObject({
      node: 'x',
      argument: 'x.dtype',
      message: expect.stringMatching(/"f64": must be one of/),
    });
  });

  it('views: reshape and permute arguments', () => {
    expect(graphError((g) => g.reshape(input(g), [1.5, 8]))).toMatchObject({
      node: 'x.reshape',
      argument: 'reshape.shape[0]',
    });
    expect(graphError((g) => g.reshape(input(g), [-3, -4]))).toMatchObject({ argument: 'reshape.shape[0]' });
    expect(graphError((g) => Reflect.apply(g.permute, g, [input(g), 'ab']))).toMatchObject({
      argument: 'permute.axes',
    });
    expect(graphError((g) => g.slice(input(g), 0, 0.5))).toMatchObject({ argument: 'slice.end' });
  });

  it('nodes: unknown ops, missing inputs and outputs past the element limit', () => {
    expect(graphError((g) => Reflect.apply(g.node, g, ['n', { op: 'frobnicate', x: input(g) }]))).toMatchObject({
      node: 'n',
      message: expect.stringMatching(/frobnicate: must be one of matmul/),
    });
    expect(graphError((g) => Reflect.apply(g.node, g, ['n', { op: 'matmul', a: input(g) }]))).toMatchObject({
      node: 'n',
      message: expect.stringMatching(/matmul\.b = undefined/),
    });
    expect(
      graphError((g) => g.matmul('mm', g.input('a', 'f32', [2 ** 20, 0]), g.input('b', 'f32', [0, 2 ** 12]))),
    ).toMatchObject({ node: 'mm', argument: 'matmul.output.shape' });
  });
});
