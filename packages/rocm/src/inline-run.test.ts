// Work run on the JS thread while the device's queue is idle (native-rocm/src/device_queue.h, RunInlineOrPush), on
// the CPU emulation of HIP (skipped when build.mjs --variant emulated has not run): an inline call comes back
// settled, a call made while other work is pending goes through the queue in order instead, device errors reject
// the same way, and the backend's `inline` option gives the engine the same results as the queued path.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Engine, InvalidArgumentError } from '@tandem/core';
import { loadAddon, RocmBackend, type NativeDevice } from './index.ts';
import { requireBackend } from '../../../test/support/requirements.ts';

const EMULATED = fileURLToPath(new URL('../build/emulated/tandem_rocm.node', import.meta.url));

/** A device of the emulated addon. */
function openDevice(): NativeDevice {
  const load = loadAddon(EMULATED);
  if (!load.ok) throw new Error(load.reason);
  return new load.addon.Device(0);
}

/** 'settled' when `promise` has already settled (checked without giving the event loop a turn), else 'pending'. */
async function stateOf(promise: Promise<unknown>): Promise<'settled' | 'pending'> {
  const quiet = promise.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  // Both candidates are chained once: an already-settled promise wins in iteration order.
  return Promise.race([quiet, Promise.resolve().then(() => 'pending' as const)]);
}

/** f32 values as the bytes upload() takes. */
const bytesOf = (values: readonly number[]): Uint8Array => new Uint8Array(new Float32Array(values).buffer);
/** A download's bytes as f32 values. */
const valuesOf = (bytes: Uint8Array): number[] =>
  Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));

describe.skipIf(!requireBackend('rocm', existsSync(EMULATED) ? undefined : `no emulated HIP build at ${EMULATED}`))(
  'inline work on an idle device queue (emulated device)',
  () => {
    it('runs upload, run and download on the calling thread when nothing is pending: each comes back settled', async () => {
      const device = openDevice();
      const upload = device.upload(bytesOf([1, -2, 3]), true);
      expect(await stateOf(upload)).toBe('settled');
      const x = await upload;
      const run = device.run('scale_f32', [x], [12], { count: 3, factor: 2 }, true);
      expect(await stateOf(run)).toBe('settled');
      const [y] = (await run).outputs;
      const download = device.download(y ?? 0, true);
      expect(await stateOf(download)).toBe('settled');
      expect(valuesOf(await download)).toEqual([2, -4, 6]);
      device.close();
    });

    it('without the flag, or while other work is pending, goes through the worker queue in call order', async () => {
      const device = openDevice();
      const x = await device.upload(bytesOf([1, 2, 3, 4]));
      const queued = device.run('scale_f32', [x], [16], { count: 4, factor: 3 });
      expect(await stateOf(queued)).toBe('pending');
      // The queued run has not settled here: an inline request must wait behind it rather than jump ahead.
      const behind = device.run('scale_f32', [x], [16], { count: 4, factor: -1 }, true);
      expect(await stateOf(behind)).toBe('pending');
      const [first, second] = await Promise.all([queued, behind]);
      expect(valuesOf(await device.download(first.outputs[0] ?? 0))).toEqual([3, 6, 9, 12]);
      expect(valuesOf(await device.download(second.outputs[0] ?? 0, true))).toEqual([-1, -2, -3, -4]);
      // Idle again: the next inline request runs here.
      expect(await stateOf(device.run('scale_f32', [x], [16], { count: 4, factor: 1 }, true))).toBe('settled');
      device.close();
    });

    it('rejects an inline run that fails on the device with the runtime error, and the device keeps working', async () => {
      const device = openDevice();
      const x = await device.upload(bytesOf([1]), true);
      // The emulated device refuses allocations above 1 GiB, as a real one would past its memory.
      const tooBig = device.run('scale_f32', [x], [2 ** 31], { count: 1, factor: 1 }, true);
      expect(await stateOf(tooBig)).toBe('settled');
      await expect(tooBig).rejects.toMatchObject({ code: 'hipErrorOutOfMemory' });
      const ok = await device.run('scale_f32', [x], [4], { count: 1, factor: 5 }, true);
      expect(valuesOf(await device.download(ok.outputs[0] ?? 0, true))).toEqual([5]);
      expect(() => device.run('scale_f32', [x], [4], { count: 1, factor: 5 }, Object(true))).toThrow(
        /inline must be a boolean/,
      );
      device.close();
    });

    it('refuses inline limits that are not numbers >= 0, naming the field and the value', () => {
      expect(() => new RocmBackend({ addonPath: EMULATED, inline: { opMs: -1, copyBytes: 0 } })).toThrow(
        InvalidArgumentError,
      );
      expect(() => new RocmBackend({ addonPath: EMULATED, inline: { opMs: -1, copyBytes: 0 } })).toThrow(
        /inline\.opMs.*-1/,
      );
      expect(() => new RocmBackend({ addonPath: EMULATED, inline: { opMs: 0.02, copyBytes: Number.NaN } })).toThrow(
        /inline\.copyBytes.*NaN/,
      );
      expect(() => new RocmBackend({ addonPath: EMULATED, inline: { opMs: Infinity, copyBytes: 0 } })).not.toThrow();
    });

    it("the backend's inline option: the engine gets the same results inline as queued", async () => {
      const results: Float32Array[][] = [];
      for (const inline of [false, { opMs: Infinity, copyBytes: Infinity }] as const) {
        const engine = await Engine.create({ backends: [new RocmBackend({ addonPath: EMULATED, inline })] });
        const a = engine.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
        const b = engine.tensor(new Float32Array([1, 0, 0, 1, 1, 1]), [3, 2]);
        const [c] = await engine.run({ op: 'matmul', a, b });
        const [d] = c === undefined ? [] : await engine.run({ op: 'add', a: c, b: c });
        const [e] = d === undefined ? [] : await engine.run({ op: 'softmax', x: d, causal: false });
        results.push(await Promise.all([c, d, e].map(async (t) => new Float32Array((await t?.read()) ?? []))));
        await engine.dispose();
      }
      expect(results[1]).toEqual(results[0]);
      expect(results[0]?.[1]).toEqual(new Float32Array([8, 10, 20, 22]));
    });
  },
);
