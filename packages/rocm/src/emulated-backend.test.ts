// The whole backend through the engine on the CPU emulation of HIP (build.mjs --variant emulated; a missing build is
// one [skip] line, or a failure under CI): uploads, runs off the JS thread, downloads, error mapping. The kernels'
// full check is the conformance suite (and test/conformance/gpu on a GPU); this proves the TypeScript side drives them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Engine, InvalidArgumentError, OutOfMemoryError, type BoundTensor, type TensorSpec } from '@tandem/core';
import { RocmBackend } from './index.ts';
import { requireBackend } from '../../../test/support/requirements.ts';

const EMULATED = fileURLToPath(new URL('../build/emulated/tandem_rocm.node', import.meta.url));

describe.skipIf(!requireBackend('rocm', existsSync(EMULATED) ? undefined : `no emulated HIP build at ${EMULATED}`))(
  'RocmBackend on the emulated device',
  () => {
    it('initialises and describes the device', async () => {
      const backend = new RocmBackend({ addonPath: EMULATED });
      expect(await backend.init()).toEqual({ ok: true });
      const d = backend.describe();
      expect(d.features).toContain('hip-emulated');
      expect(d.memoryBytes).toBeGreaterThan(0);
      expect(backend.health()).toEqual({ state: 'healthy' });
      await backend.dispose();
    });

    it('availableMemory(): one device reading reused for 10 ms, less what this backend allocated since, plus what it freed', async () => {
      let now = 0;
      const backend = new RocmBackend({ addonPath: EMULATED, clock: () => now });
      expect(await backend.init()).toEqual({ ok: true });
      const reading = backend.availableMemory() ?? 0;
      expect(reading).toBeGreaterThan(0);
      const buffer = await backend.upload(new Uint8Array(1 << 20), { dtype: 'u32', shape: [1 << 18] });
      expect(backend.availableMemory()).toBe(reading - (1 << 20));
      backend.free(buffer);
      expect(backend.availableMemory()).toBe(reading);
      const kept = await backend.upload(new Uint8Array(1 << 20), { dtype: 'u32', shape: [1 << 18] });
      now = 11; // a new reading: the emulated device reports the same free bytes whatever is allocated
      expect(backend.availableMemory()).toBe(reading);
      backend.free(kept);
      expect(backend.availableMemory()).toBe(reading + (1 << 20));
      await backend.dispose();
      expect(backend.availableMemory()).toBeUndefined();
    });

    it('timeLaunches(): back-to-back launches over rotated inputs, refusing ops of another kernel or shape', async () => {
      const backend = new RocmBackend({ addonPath: EMULATED });
      expect(await backend.init()).toEqual({ ok: true });
      const spec: TensorSpec = { dtype: 'f32', shape: [64] };
      const upload = async (v: number): Promise<BoundTensor> => ({
        ...spec,
        buffer: await backend.upload(new Uint8Array(new Float32Array(64).fill(v).buffer), spec),
      });
      const [x1, x2] = [await upload(1), await upload(2)];
      const ms = await backend.timeLaunches(
        [
          { op: 'scale', x: x1, factor: 2 },
          { op: 'scale', x: x2, factor: 2 },
        ],
        [spec],
        3,
      );
      expect(ms).toBeGreaterThan(0);
      await expect(
        backend.timeLaunches(
          [
            { op: 'scale', x: x1, factor: 2 },
            { op: 'silu', x: x2 },
          ],
          [spec],
          3,
        ),
      ).rejects.toThrow(/ops\[1\].*the same kernel and parameters/);
      await expect(backend.timeLaunches([{ op: 'scale', x: x1, factor: 2 }], [spec], 0)).rejects.toBeInstanceOf(
        InvalidArgumentError,
      );
      await expect(backend.timeLaunches([], [spec], 3)).rejects.toBeInstanceOf(InvalidArgumentError);
      await backend.dispose();
    });

    it('runs ops through the engine and reads the results back', async () => {
      const engine = await Engine.create({ backends: [new RocmBackend({ addonPath: EMULATED })] });
      const a = engine.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
      const b = engine.tensor(new Float32Array([1, 0, 0, 1, 1, 1]), [3, 2]);
      const [c] = await engine.run({ op: 'matmul', a, b });
      expect(await c?.read()).toEqual(new Float32Array([4, 5, 10, 11]));
      const x = engine.tensor(new Float32Array([3, Number.NaN, -Infinity, 3, 1]), [5]);
      const [values, indices] = await engine.run({ op: 'topK', x, k: 4 });
      expect(await indices?.read()).toEqual(new Int32Array([0, 3, 4, 2]));
      expect(await values?.read()).toEqual(new Float32Array([3, 3, 1, -Infinity]));
      const s = engine.tensor(new Float32Array([0, 0, 1, 1]), [2, 2]);
      const [p] = await engine.run({ op: 'softmax', x: s, causal: true });
      const got = await p?.read();
      expect(Array.from(got ?? [])).toEqual([1, 0, 0.5, 0.5]);
      const events = engine.telemetry.opEvents();
      expect(events.length).toBe(3);
      expect(events.every((e) => e.backend === 'rocm' && e.ok)).toBe(true);
      await engine.dispose();
    });

    it('maps an allocation failure to OutOfMemoryError', async () => {
      const backend = new RocmBackend({ addonPath: EMULATED });
      await backend.init();
      const x = await backend.upload(new Uint8Array(4), { dtype: 'f32', shape: [1] });
      // The emulated device refuses allocations above 1 GiB, as a real one would past its memory.
      const huge = { dtype: 'f32' as const, shape: [1 << 29] };
      await expect(
        backend.run({ op: 'scale', x: { dtype: 'f32', shape: [1], buffer: x }, factor: 2 }, [huge]),
      ).rejects.toBeInstanceOf(OutOfMemoryError);
      await backend.dispose();
    });
  },
);
