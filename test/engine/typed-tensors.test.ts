// Typed tensors: a tensor's dtype is part of its type, from engine.tensor() and the creators through every op method
// to read(). The expectTypeOf lines are checked by `npm run typecheck` (tsc over test/), the @ts-expect-error lines
// prove that a wrong dtype does not compile; the runtime expectations check that the types tell the truth.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Engine, OP_DEFINITIONS, OP_KINDS, quantizeQ8_0, type DType, type InputDType, type Tensor } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';

async function engine(): Promise<Engine> {
  return Engine.create({ backends: [new ReferenceBackend()] });
}

describe('typed tensors', () => {
  it('engine.tensor() types the tensor by its data, or by the dtype given', async () => {
    const e = await engine();
    expectTypeOf(e.tensor(new Float32Array(2), [2])).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(e.tensor([1, 2], [2])).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(e.tensor(new Int32Array(2), [2])).toEqualTypeOf<Tensor<'i32'>>();
    expectTypeOf(e.tensor(new Uint32Array(2), [2])).toEqualTypeOf<Tensor<'u32'>>();
    expectTypeOf(e.tensor(new Uint16Array(2), [2])).toEqualTypeOf<Tensor<'f16'>>();
    expectTypeOf(e.tensor(new Uint8Array(34), [32], 'q8_0')).toEqualTypeOf<Tensor<'q8_0'>>();
    // @ts-expect-error: an Int32Array does not hold f32 values
    expect(() => e.tensor(new Int32Array(2), [2], 'f32')).toThrow(
      /^tensor\.data = "a Int32Array": does not carry dtype f32/,
    );
    // A dtype known only at run time gives the union, as it must.
    const anyDType = (dtype: DType): Tensor => e.tensor(new Float32Array(2), [2], dtype);
    expectTypeOf(anyDType).returns.toEqualTypeOf<Tensor>();
    await e.dispose();
  });

  it('read() returns the array type of the dtype', async () => {
    const e = await engine();
    expectTypeOf(await e.tensor([1], [1]).read()).toEqualTypeOf<Float32Array>();
    expectTypeOf(await e.tensor(new Int32Array(1), [1]).read()).toEqualTypeOf<Int32Array>();
    expectTypeOf(await e.tensor(new Uint32Array(1), [1]).read()).toEqualTypeOf<Uint32Array>();
    expectTypeOf(await e.tensor(new Uint16Array(1), [1]).read()).toEqualTypeOf<Float32Array>(); // f16 bits in, values out
    expectTypeOf(await e.tensor(quantizeQ8_0(new Float32Array(32)), [32], 'q8_0').read()).toEqualTypeOf<Uint8Array>();
    expect(await e.tensor(new Int32Array([3]), [1]).read()).toBeInstanceOf(Int32Array);
    await e.dispose();
  });

  it('every op method carries the dtype through, as the op gives it at run time', async () => {
    const e = await engine();
    const m = e.tensor(new Float32Array(4), [2, 2]);
    const h = e.tensor(new Uint16Array(4), [2, 2]);
    const x3 = e.zeros([2, 2, 4]);
    const q8 = e.zeros([2, 32], 'q8_0');
    const checks: Array<[Tensor, DType]> = [];
    const saw = async <D extends DType>(t: Promise<Tensor<D>>, dtype: D): Promise<Tensor<D>> => {
      checks.push([await t, dtype]);
      return t;
    };
    expectTypeOf(await saw(e.matmul(m, m), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.matmul(h, h), 'f16')).toEqualTypeOf<Tensor<'f16'>>();
    expectTypeOf(await saw(e.add(h, h), 'f16')).toEqualTypeOf<Tensor<'f16'>>();
    expectTypeOf(await saw(e.mul(m, m), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.scale(h, 2), 'f16')).toEqualTypeOf<Tensor<'f16'>>();
    expectTypeOf(await saw(e.gelu(h), 'f16')).toEqualTypeOf<Tensor<'f16'>>();
    expectTypeOf(await saw(e.silu(m), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.swiglu(m, m), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.softmax(m), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.rmsNorm(m, { weight: e.ones([2]) }), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.rope(x3), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.attention(x3, x3, x3), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.cosineSimilarity(m, m), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.dequantize(q8), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.dequantize(h), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.quantizedMatmul(e.zeros([1, 32]), q8), 'f32')).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(await saw(e.concat(e.zeros([1], 'i32'), e.zeros([2], 'i32')), 'i32')).toEqualTypeOf<Tensor<'i32'>>();
    const graph = { rowPtr: e.tensor(Uint32Array.of(0, 0), [2]), colIdx: e.zeros([0], 'u32'), weights: e.zeros([0]) };
    expectTypeOf(
      await saw(e.spreadActivation(graph, e.ones([1]), { decay: 1, threshold: 0, iterations: 1 }), 'f32'),
    ).toEqualTypeOf<Tensor<'f32'>>();
    const { values, indices } = await e.topK(m, 1);
    checks.push([values, 'f32'], [indices, 'i32']);
    expectTypeOf(values).toEqualTypeOf<Tensor<'f32'>>();
    expectTypeOf(indices).toEqualTypeOf<Tensor<'i32'>>();
    expectTypeOf(await indices.read()).toEqualTypeOf<Int32Array>();
    expect(checks.map(([t]) => t.dtype)).toEqual(checks.map(([, dtype]) => dtype));
    await e.dispose();
  });

  it('a tensor of a dtype an op does not take is a compile error (and, past a cast, an InvalidArgumentError)', async () => {
    const e = await engine();
    const ints = e.tensor(new Int32Array(4), [2, 2]);
    const floats = e.tensor(new Float32Array(4), [2, 2]);
    const half = e.tensor(new Uint16Array(4), [2, 2]);
    // @ts-expect-error: softmax takes f32
    await expect(e.softmax(ints)).rejects.toThrow(/^softmax\.x\.dtype = "i32"/);
    // @ts-expect-error: matmul takes f32 or f16
    await expect(e.matmul(ints, ints)).rejects.toThrow(/^matmul\.a\.dtype = "i32"/);
    // @ts-expect-error: matmul's inputs have one dtype
    await expect(e.matmul(floats, half)).rejects.toThrow(/^matmul\.b\.dtype = "f16": must equal a\.dtype/);
    // @ts-expect-error: silu takes f32 only
    await expect(e.silu(half)).rejects.toThrow(/^silu\.x\.dtype = "f16"/);
    await e.dispose();
  });

  it('hasDType narrows a tensor whose dtype is known only at run time, without a cast', async () => {
    const e = await engine();
    const loaded: Tensor = e.tensor(new Float32Array([0, 1]), [2], 'f32' as DType);
    // @ts-expect-error: a Tensor of any dtype is not a Tensor<'f32'>
    await e.softmax(loaded);
    if (!loaded.hasDType('f32')) throw new Error('not f32');
    expectTypeOf(loaded).toEqualTypeOf<Tensor<'f32'>>();
    expect(Array.from(await (await e.softmax(loaded)).read())).toHaveLength(2);
    expect(loaded.hasDType('i32')).toBe(false);
    await e.dispose();
  });

  it("the methods' input dtypes are the op definitions' (InputDType)", () => {
    expectTypeOf<InputDType<'matmul', 'a'>>().toEqualTypeOf<'f32' | 'f16'>();
    expectTypeOf<InputDType<'dequantize', 'x'>>().toEqualTypeOf<'q8_0' | 'q4_0' | 'f16'>();
    expectTypeOf<InputDType<'concat', 'a'>>().toEqualTypeOf<'f32' | 'f16' | 'i32' | 'u32'>();
    expectTypeOf<InputDType<'spreadActivation', 'rowPtr'>>().toEqualTypeOf<'u32'>();
    // And at run time each definition lists the same dtypes its type says.
    expect(
      OP_KINDS.map((k) => [k, Object.values(OP_DEFINITIONS[k].inputs).map((i) => i.dtypes.join('|'))]),
    ).toContainEqual(['matmul', ['f32|f16', 'f32|f16']]);
  });
});
