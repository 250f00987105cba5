// Tensor views, residency and the typed errors bad input gets.
import { describe, expect, it } from 'vitest';
import { DisposedError, Engine, InvalidArgumentError, type Op, type Tensor } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { simulatedEngine } from '../scheduler/harness.ts';
import { caught } from '../support/caught.ts';

describe('tensors', () => {
  it('reads back what was written, per dtype', async () => {
    const { engine } = await simulatedEngine();
    expect(await engine.tensor(new Float32Array([1, 2, 3]), [3]).read()).toEqual(new Float32Array([1, 2, 3]));
    expect(await engine.tensor([1.5, -2], [2]).read()).toEqual(new Float32Array([1.5, -2]));
    expect(await engine.tensor(new Int32Array([-7]), [1]).read()).toEqual(new Int32Array([-7]));
    expect(await engine.tensor(new Uint32Array([7]), [1]).read()).toEqual(new Uint32Array([7]));
    expect(await engine.tensor(new Uint16Array([0x3c00, 0xc000, 0x7c00]), [3]).read()).toEqual(
      new Float32Array([1, -2, Infinity]),
    ); // f16 bits in, values out
    const q = new Uint8Array(34);
    expect(await engine.tensor(q, [32], 'q8_0').read()).toEqual(q);
  });

  it('copies input data, so later writes by the caller change nothing', async () => {
    const { engine } = await simulatedEngine();
    const data = new Float32Array([1, 2]);
    const t = engine.tensor(data, [2]);
    data[0] = 99;
    expect((await t.read())[0]).toBe(1);
  });

  it("hands a result's download to the reader without a second copy, and copies only what the tensor keeps", async () => {
    const reference = new ReferenceBackend();
    const downloads: Uint8Array[] = [];
    const download = reference.download.bind(reference);
    let misalign = false;
    reference.download = async (buffer) => {
      const bytes = await download(buffer);
      downloads.push(bytes);
      if (!misalign) return bytes;
      const padded = new Uint8Array(bytes.byteLength + 2); // a view at offset 2, as bytes from an IPC message can be
      padded.set(bytes, 2);
      return padded.subarray(2);
    };
    const engine = await Engine.create({ backends: [reference] });
    const a = engine.tensor(new Float32Array([1, 2, 3]), [3]);
    const [sum] = await engine.run({ op: 'add', a, b: a });
    const first = await sum?.read();
    expect(first).toEqual(new Float32Array([2, 4, 6]));
    expect(first?.buffer).toBe(downloads[0]?.buffer); // the download itself, not a copy of it
    if (first !== undefined) first[0] = 99; // the reader's array: the tensor does not change
    expect(await sum?.read()).toEqual(new Float32Array([2, 4, 6]));
    expect(downloads).toHaveLength(2); // a read keeps no host copy: the second downloads again
    misalign = true;
    const third = await sum?.read();
    expect(third).toEqual(new Float32Array([2, 4, 6])); // misaligned for f32: copied
    expect(third?.byteOffset).toBe(0);
    // A tensor's own host copy is copied on every read.
    const kept = await a.read();
    kept[0] = 99;
    expect(await a.read()).toEqual(new Float32Array([1, 2, 3]));
    await engine.dispose();
  });

  it('permutes, transposes and slices as metadata, gathering on read', async () => {
    const { engine } = await simulatedEngine();
    const t = engine.tensor(
      Float32Array.from({ length: 6 }, (_, i) => i),
      [2, 3],
    );
    const tt = t.transpose();
    expect(tt.shape).toEqual([3, 2]);
    expect(tt.isContiguous).toBe(false);
    expect(tt.storage).toBe(t.storage);
    expect(await tt.read()).toEqual(new Float32Array([0, 3, 1, 4, 2, 5]));
    expect(await t.slice(1, 2).read()).toEqual(new Float32Array([3, 4, 5]));
    expect(await tt.transpose().read()).toEqual(new Float32Array([0, 1, 2, 3, 4, 5]));
    const cube = engine.tensor(
      Float32Array.from({ length: 24 }, (_, i) => i),
      [2, 3, 4],
    );
    const p = cube.permute([2, 0, 1]);
    const got = await p.read();
    expect(p.shape).toEqual([4, 2, 3]);
    expect(got[1 * 6 + 1 * 3 + 2]).toBe(1 * 12 + 2 * 4 + 1); // p[k=1][i=1][j=2] = cube[1][2][1]
    expect(await t.reshape([3, 2]).read()).toEqual(new Float32Array([0, 1, 2, 3, 4, 5]));
  });

  it('binds a view to a backend as a contiguous copy made once', async () => {
    const { engine, cpu } = await simulatedEngine();
    const a = engine.tensor(new Float32Array(6), [2, 3]).transpose();
    const b = engine.tensor(new Float32Array(6), [2, 3]);
    await engine.run({ op: 'matmul', a, b }, { strategy: { only: 'cpu' } });
    const cached = a.contiguousCache;
    expect(cached?.residency()).toEqual(['host', 'cpu']);
    await engine.run({ op: 'matmul', a, b }, { strategy: { only: 'cpu' } });
    expect(a.contiguousCache).toBe(cached);
    expect(cpu.calls).toBe(2);
  });

  it('concatenates views (a slice, a transpose) along axis 0 as their contiguous copies', async () => {
    const engine = await Engine.create({ backends: [new ReferenceBackend()] });
    const t = engine.tensor(
      Float32Array.from({ length: 6 }, (_, i) => i),
      [2, 3],
    );
    const [sliced] = await engine.run({ op: 'concat', a: t.slice(1, 2), b: t });
    expect(sliced?.shape).toEqual([3, 3]);
    expect(await sliced?.read()).toEqual(new Float32Array([3, 4, 5, 0, 1, 2, 3, 4, 5]));
    const [transposed] = await engine.run({
      op: 'concat',
      a: t.transpose(),
      b: engine.tensor(new Float32Array([9, 9]), [1, 2]),
    });
    expect(await transposed?.read()).toEqual(new Float32Array([0, 3, 1, 4, 2, 5, 9, 9]));
    await engine.dispose();
  });

  it('shows residency: host after creation, backend after an op; a read hands its download over and keeps none', async () => {
    const { engine } = await simulatedEngine();
    const x = engine.tensor(new Float32Array(4), [2, 2]);
    expect(x.residency()).toEqual(['host']);
    const [y] = await engine.run({ op: 'matmul', a: x, b: x }, { strategy: { only: 'gpu' } });
    expect(x.residency()).toEqual(['host', 'gpu']);
    expect(y?.residency()).toEqual(['gpu']);
    await y?.read();
    expect(y?.residency()).toEqual(['gpu']);
    // Used on another backend, it is downloaded and that host copy is kept for later uploads.
    if (y !== undefined) await engine.run({ op: 'add', a: y, b: y }, { strategy: { only: 'cpu' } });
    expect(y?.residency()).toEqual(['host', 'gpu', 'cpu']);
  });

  it('refuses use after dispose with a DisposedError', async () => {
    const { engine } = await simulatedEngine();
    const x = engine.tensor(new Float32Array(4), [2, 2]);
    x.dispose();
    x.dispose(); // idempotent
    await expect(x.read()).rejects.toThrow(DisposedError);
    await expect(engine.matmul(x, x)).rejects.toThrow(DisposedError);
    await engine.dispose();
    expect(() => engine.tensor(new Float32Array(1), [1])).toThrow(DisposedError);
  });
});

describe('bad input gets a typed error naming the argument, the value and the limit', () => {
  const cases: Array<
    [
      string,
      (t: (shape: number[]) => Tensor, raw: Awaited<ReturnType<typeof simulatedEngine>>['engine']) => unknown,
      string,
      RegExp,
    ]
  > = [
    ['data length', (_t, e) => e.tensor(new Float32Array(5), [2, 3]), 'tensor.data', /20 bytes.*must be 24 bytes/],
    [
      'negative dim',
      (_t, e) => e.tensor(new Float32Array(0), [-1]),
      'tensor.shape[0]',
      /-1: must be a non-negative integer/,
    ],
    ['fractional dim', (_t, e) => e.tensor(new Float32Array(0), [1.5]), 'tensor.shape[0]', /1\.5/],
    [
      'dtype mismatch',
      // @ts-expect-error: the types refuse it too
      (_t, e) => e.tensor(new Int32Array(1), [1], 'f32'),
      'tensor.data',
      /Int32Array.*does not carry dtype f32/,
    ],
    [
      'quantized row length',
      (_t, e) => e.tensor(new Uint8Array(34), [1, 16], 'q8_0'),
      'tensor.shape',
      /multiple of 32/,
    ],
    ['permute axes', (t) => t([2, 3]).permute([0, 0]), 'permute.axes', /permutation of 0\.\.1/],
    ['slice range', (t) => t([2, 3]).slice(1, 5), 'slice.end', /5: must be an integer in \[1, 2\]/],
    ['reshape count', (t) => t([2, 3]).reshape([4]), 'reshape.shape', /must have 6 elements/],
  ];
  for (const [name, fn, argument, message] of cases) {
    it(name, async () => {
      const { engine } = await simulatedEngine();
      const t = (shape: number[]) => engine.tensor(new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
      const error = caught(() => fn(t, engine));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      if (!(error instanceof InvalidArgumentError)) return;
      expect(error.argument).toBe(argument);
      expect(error.message).toMatch(message);
    });
  }

  const opCases: Array<[string, (t: (shape: number[]) => Tensor) => Op<Tensor>, string, RegExp]> = [
    [
      'matmul inner dims',
      (t) => ({ op: 'matmul', a: t([2, 3]), b: t([4, 5]) }),
      'matmul.b.shape[0]',
      /4: must equal a.shape\[1\] \(3\)/,
    ],
    ['matmul rank', (t) => ({ op: 'matmul', a: t([2, 3, 4]), b: t([4, 5]) }), 'matmul.a.shape', /must have rank 2/],
    ['add broadcast', (t) => ({ op: 'add', a: t([2, 3]), b: t([2]) }), 'add.b.shape', /suffix/],
    ['topK k', (t) => ({ op: 'topK', x: t([2, 3]), k: 4 }), 'topK.k', /4: must be an integer in \[1, 3\]/],
    ['softmax causal rank', (t) => ({ op: 'softmax', x: t([3]), causal: true }), 'softmax.x.shape', /rank >= 2/],
    [
      'attention heads',
      (t) => ({ op: 'attention', q: t([1, 3, 4]), k: t([2, 2, 4]), v: t([2, 2, 4]), causal: false, scale: undefined }),
      'attention.k.shape[1]',
      /must divide q.shape\[1\] \(3\)/,
    ],
    [
      'rope odd head dim',
      (t) => ({ op: 'rope', x: t([1, 1, 3]), positionOffset: 0, base: 10000, mode: 'neox' }),
      'rope.x.shape[2]',
      /must be even/,
    ],
    ['scale NaN', (t) => ({ op: 'scale', x: t([2]), factor: NaN }), 'scale.factor', /finite/],
    [
      'cosine dims',
      (t) => ({ op: 'cosineSimilarity', queries: t([768]), targets: t([10, 384]) }),
      'cosineSimilarity.targets.shape[1]',
      /384: must equal the query dimension \(768\)/,
    ],
    [
      'concat trailing shape',
      (t) => ({ op: 'concat', a: t([4, 2, 8]), b: t([1, 2, 7]) }),
      'concat.b.shape',
      /\[1, 2, 7\]: must be \[rows, 2, 8\]/,
    ],
    ['concat rank', (t) => ({ op: 'concat', a: t([]), b: t([]) }), 'concat.a.shape', /must have rank >= 1/],
  ];
  for (const [name, build, argument, message] of opCases) {
    it(name, async () => {
      const { engine, cpu, gpu } = await simulatedEngine();
      const t = (shape: number[]) => engine.tensor(new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
      const error = await engine.run(build(t)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      if (!(error instanceof InvalidArgumentError)) return;
      expect(error.argument).toBe(argument);
      expect(error.message).toMatch(message);
      expect(cpu.calls + gpu.calls).toBe(0); // rejected before any backend ran
    });
  }
});
