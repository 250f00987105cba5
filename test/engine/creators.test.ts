// engine.zeros / ones / full / random: the values in each dtype, typed results, a seed that repeats, the documented
// distributions, and every bad argument a typed error naming it.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  decodeF16,
  dequantizeQ4_0,
  dequantizeQ8_0,
  Engine,
  floatToHalf,
  InvalidArgumentError,
  type Tensor,
} from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { caught } from '../support/caught.ts';

async function engine(): Promise<Engine> {
  return Engine.create({ backends: [new ReferenceBackend()] });
}

describe('zeros, ones, full', () => {
  it('fill every dtype, f32 by default, typed by the dtype given', async () => {
    const e = await engine();
    const z = e.zeros([2, 3]);
    expectTypeOf(z).toEqualTypeOf<Tensor<'f32'>>();
    expect([z.dtype, z.shape]).toEqual(['f32', [2, 3]]);
    expect(await z.read()).toEqual(new Float32Array(6));
    expect(await e.ones([3]).read()).toEqual(Float32Array.of(1, 1, 1));
    expect(await e.full([2], -Infinity).read()).toEqual(Float32Array.of(-Infinity, -Infinity));
    const h = e.ones([2], 'f16');
    expectTypeOf(h).toEqualTypeOf<Tensor<'f16'>>();
    expect(await h.read()).toEqual(Float32Array.of(1, 1));
    expect(await e.full([1], 0.1, 'f16').read()).toEqual(
      Float32Array.of(decodeF16(Uint16Array.of(floatToHalf(0.1)))[0] ?? NaN),
    );
    const i = e.full([2], -7, 'i32');
    expectTypeOf(await i.read()).toEqualTypeOf<Int32Array>();
    expect(await i.read()).toEqual(Int32Array.of(-7, -7));
    expect(await e.full([1], 2 ** 32 - 1, 'u32').read()).toEqual(Uint32Array.of(2 ** 32 - 1));
    expect(dequantizeQ8_0(await e.zeros([64], 'q8_0').read(), 64)).toEqual(new Float32Array(64));
    // Quantized: the value as the block format holds it (a scale in f16 times an int8 or int4).
    expect(dequantizeQ8_0(await e.ones([1, 32], 'q8_0').read(), 32).every((v) => Math.abs(v - 1) < 1e-4)).toBe(true);
    expect(dequantizeQ4_0(await e.full([32], -3, 'q4_0').read(), 32).every((v) => Math.abs(v + 3) < 1e-3)).toBe(true);
    expect(await e.zeros([0, 4]).read()).toEqual(new Float32Array(0));
    // Made like engine.tensor(): on the host, uploaded to the backend of the first op that reads them.
    expect(z.residency()).toEqual(['host']);
    expect(await (await e.add(e.ones([2, 2]), e.full([2], 2))).read()).toEqual(new Float32Array(4).fill(3));
    await e.dispose();
  });

  it('refuse a bad shape, dtype or value by argument name', async () => {
    const e = await engine();
    const cases: Array<[() => unknown, string, RegExp]> = [
      [() => e.zeros([-1]), 'zeros.shape[0]', /must be a non-negative integer/],
      [() => e.ones([2 ** 20, 2 ** 20]), 'ones.shape', /elements/],
      [() => e.zeros('3' as never), 'zeros.shape', /array/],
      [() => e.zeros([2], 'f64' as never), 'zeros.dtype', /must be one of f32, f16, q8_0, q4_0, i32, u32/],
      [() => e.ones([2, 16], 'q8_0'), 'ones.shape', /last dimension must be a multiple of 32 for q8_0/],
      [() => e.full([2], 1.5, 'i32'), 'full.value', /integer in \[-2\^31, 2\^31 - 1\]/],
      [() => e.full([2], -1, 'u32'), 'full.value', /integer in \[0, 2\^32 - 1\]/],
      [() => e.full([32], NaN, 'q4_0'), 'full.value', /finite/],
      [() => e.full([2], '1' as never), 'full.value', /must be a number/],
    ];
    for (const [make, argument, limit] of cases) {
      const error = caught(make);
      expect(error, argument).toBeInstanceOf(InvalidArgumentError);
      expect(error, argument).toMatchObject({ argument });
      expect((error as InvalidArgumentError).limit).toMatch(limit);
    }
    await e.dispose();
    expect(() => e.zeros([1])).toThrow(/engine was used after dispose\(\)/);
  });
});

describe('random', () => {
  it('repeats for a seed, differs across seeds, and is uniform in [0, 1) by default', async () => {
    const e = await engine();
    const a = await e.random([1000], { seed: 42 }).read();
    expect(await e.random([1000], { seed: 42 }).read()).toEqual(a);
    expect(await e.random([1000], { seed: 43 }).read()).not.toEqual(a);
    expect(await e.random([1000]).read()).not.toEqual(await e.random([1000]).read()); // no seed: a fresh one each call
    expect(Math.min(...a)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...a)).toBeLessThan(1);
    const mean = a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean).toBeCloseTo(0.5, 1);
    // The first values of seed 42 are pinned: mulberry32, one 32-bit draw per value, low + draw * (high - low).
    expect(Array.from(a.subarray(0, 3), (v) => v.toFixed(6))).toMatchInlineSnapshot(`
      [
        "0.601104",
        "0.448291",
        "0.852466",
      ]
    `);
    await e.dispose();
  });

  it('draws uniform in [low, high) and normal with mean and std, in f32 or f16', async () => {
    const e = await engine();
    const u = await e.random([20_000], { seed: 1, low: -2, high: -1 }).read();
    expect(Math.min(...u)).toBeGreaterThanOrEqual(-2);
    expect(Math.max(...u)).toBeLessThan(-1);
    const n = await e.random([20_000], { seed: 2, distribution: 'normal', mean: 3, std: 0.5 }).read();
    const mean = n.reduce((s, v) => s + v, 0) / n.length;
    const std = Math.sqrt(n.reduce((s, v) => s + (v - mean) ** 2, 0) / n.length);
    expect(mean).toBeCloseTo(3, 1);
    expect(std).toBeCloseTo(0.5, 1);
    const h = e.random([4], { seed: 1, dtype: 'f16' });
    expectTypeOf(h).toEqualTypeOf<Tensor<'f16'>>();
    expect(Array.from(await h.read())).toEqual(
      Array.from(await e.random([4], { seed: 1 }).read(), (v) => decodeF16(Uint16Array.of(floatToHalf(v)))[0]),
    );
    expect(await e.random([2], { seed: 1, distribution: 'normal', std: 0 }).read()).toEqual(new Float32Array(2));
    await e.dispose();
  });

  it('never reaches high, even where a draw rounds up to it in f32', async () => {
    const e = await engine();
    // With high = low + one f32 step, every draw above the midpoint rounds to high: all must stay at low.
    const low = 1;
    const high = 1 + 2 ** -23;
    const values = await e.random([1000], { seed: 3, low, high }).read();
    expect(values.every((v) => v === low)).toBe(true);
    await e.dispose();
  });

  it("refuses bad options by name: unknown keys, call options, another distribution's parameters, bad numbers", async () => {
    const e = await engine();
    const cases: Array<[() => unknown, string, RegExp]> = [
      [
        () => e.random([2], { sed: 1 } as never),
        'random.options.sed',
        /is not an option here \(accepted: seed, distribution, low, high, mean, std, dtype\)/,
      ],
      [() => e.random([2], { strategy: 'auto' } as never), 'random.options.strategy', /is not an option here/],
      [() => e.random([2], { seed: 1.5 }), 'random.options.seed', /must be an integer/],
      [
        () => e.random([2], { distribution: 'gaussian' as never }),
        'random.options.distribution',
        /must be one of uniform, normal/,
      ],
      [
        () => e.random([2], { distribution: 'normal', low: 0 }),
        'random.options.low',
        /is not an option of the normal distribution/,
      ],
      [() => e.random([2], { std: 2 }), 'random.options.std', /is not an option of the uniform distribution/],
      [() => e.random([2], { low: 1, high: 1 }), 'random.options.high', /must be greater than low \(1\)/],
      [() => e.random([2], { high: Infinity }), 'random.options.high', /finite/],
      [() => e.random([2], { distribution: 'normal', std: -1 }), 'random.options.std', /must be >= 0/],
      [() => e.random([2], { dtype: 'i32' as never }), 'random.options.dtype', /must be 'f32' or 'f16'/],
      [() => e.random([2.5]), 'random.shape[0]', /non-negative integer/],
      [() => e.random([2], 'normal' as never), 'random.options', /must be an options object/],
    ];
    for (const [make, argument, limit] of cases) {
      const error = caught(make);
      expect(error, argument).toBeInstanceOf(InvalidArgumentError);
      expect(error, argument).toMatchObject({ argument });
      expect((error as InvalidArgumentError).limit).toMatch(limit);
    }
    await e.dispose();
  });
});
