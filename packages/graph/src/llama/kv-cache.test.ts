// KvCache: engine tensors grown by concat where they live; forks share the prefix; capacity and shapes checked.
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@tandem/core';
import { referenceEngine, wasmEngine } from '../test-support/engines.ts';
import { KvCache } from './kv-cache.ts';

const wasm = await wasmEngine();
afterAll(async () => {
  if (wasm.ok) await wasm.engine.dispose();
});

const rows = (n: number, start: number): Float32Array => Float32Array.from({ length: n * 2 * 4 }, (_, i) => start + i);

describe('KvCache', () => {
  it('appends with concat on the engine, disposing the old tensors; reads back the rows in order', async () => {
    const engine = await referenceEngine();
    const cache = new KvCache(2, 4, 5);
    const k1 = engine.tensor(rows(2, 0), [2, 2, 4]);
    await cache.append(engine, k1, k1);
    const first = cache.tensors();
    const k2 = engine.tensor(rows(3, 100), [3, 2, 4]);
    await cache.append(engine, k2, k2);
    expect(cache.length).toBe(5);
    expect(() => first?.k.shape).not.toThrow();
    await expect(first?.k.read()).rejects.toThrow(); // disposed by the append
    const { k, v } = await cache.read();
    expect(k).toEqual(new Float32Array([...rows(2, 0), ...rows(3, 100)]));
    expect(v).toEqual(k);
    await expect(cache.append(engine, k1, k1)).rejects.toThrow(InvalidArgumentError); // past the capacity
    cache.dispose();
    expect(cache.length).toBe(0);
    await engine.dispose();
  });

  it.skipIf(!wasm.ok)(
    'forks without copying; a fork appends to its own tensors and leaves the parent intact',
    async () => {
      if (!wasm.ok) throw new Error(wasm.reason);
      const engine = wasm.engine;
      const parent = new KvCache(2, 4, 4);
      const k = engine.tensor(rows(3, 0), [3, 2, 4]);
      await engine.run({ op: 'scale', x: k, factor: 1 }); // k now on wasm too
      const firstMoves: number[] = [];
      const stopFirst = engine.telemetry.subscribe((e) => firstMoves.push(e.bytesMoved));
      await parent.append(engine, k, k);
      stopFirst();
      expect(firstMoves).toEqual([0, 0]); // the first rows are copied on wasm, not through the host
      for (let i = 0; i < 2; i++) {
        const fork = parent.fork();
        expect(fork.tensors()).toBe(parent.tensors());
        const moved: number[] = [];
        const stop = engine.telemetry.subscribe((e) => moved.push(e.bytesMoved));
        const row = engine.tensor(rows(1, 50), [1, 2, 4]);
        await fork.append(engine, row, row);
        stop();
        // Only the new row (k and v are one tensor here) crossed to wasm, once: the 3-row prefix stayed in linear memory.
        expect(moved.reduce((s, b) => s + b, 0)).toBe(1 * 2 * 4 * 4);
        expect((await fork.read()).k).toEqual(new Float32Array([...rows(3, 0), ...rows(1, 50)]));
        fork.dispose();
        expect((await parent.read()).k).toEqual(rows(3, 0));
      }
      parent.dispose();
    },
  );

  it('refuses tensors of the wrong shape, naming the argument', async () => {
    const engine = await referenceEngine();
    const cache = new KvCache(2, 4, 8);
    const bad = engine.tensor(new Float32Array(6), [1, 2, 3]);
    await expect(cache.append(engine, bad, bad)).rejects.toThrow(/KvCache\.k\.shape/);
    await engine.dispose();
  });
});
