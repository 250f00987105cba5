// Downloads into pinned host blocks (native-rocm/src/host_pool.h) on the CPU emulation of HIP (skipped when
// build.mjs --variant emulated has not run): exact bytes, a block per live array carved from 16 MiB chunks, the
// 256 MiB limit with the pageable fallback beyond it (and pinnedBlockFree telling ahead), idle chunks carved again
// and larger blocks lent at the limit, and blocks going back to the pool when their arrays are garbage-collected.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadAddon, type NativeDevice } from './index.ts';
import { requireBackend } from '../../../test/support/requirements.ts';

const EMULATED = fileURLToPath(new URL('../build/emulated/tandem_rocm.node', import.meta.url));
const MiB = 1 << 20;

/** A device of the emulated addon. */
function openDevice(): NativeDevice {
  const load = loadAddon(EMULATED);
  if (!load.ok) throw new Error(load.reason);
  return new load.addon.Device(0);
}

/** `bytes` bytes whose value at i is (i * 7 + seed) mod 256. */
function pattern(bytes: number, seed: number): Uint8Array {
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) data[i] = (i * 7 + seed) & 255;
  return data;
}

/** Full garbage collections until the finalizers of dead arrays have run (they are deferred to the event loop). */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('gc is not exposed');
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.skipIf(!requireBackend('rocm', existsSync(EMULATED) ? undefined : `no emulated HIP build at ${EMULATED}`))(
  'downloads into pinned host memory (emulated device)',
  () => {
    it('lands 64 KiB and larger downloads in pinned blocks, one per live array, and smaller ones outside', async () => {
      const device = openDevice();
      expect(device.memoryInfo().pinnedHost).toBe(0);
      const small = await device.upload(pattern(1000, 1));
      expect(await device.download(small)).toEqual(pattern(1000, 1));
      expect(device.memoryInfo().pinnedHost).toBe(0);

      const big = await device.upload(pattern(MiB + 3, 2));
      const first = await device.download(big);
      const second = await device.download(big);
      expect(Buffer.compare(first, pattern(MiB + 3, 2))).toBe(0);
      expect(Buffer.compare(second, pattern(MiB + 3, 2))).toBe(0);
      expect(first.byteLength).toBe(MiB + 3);
      expect(first.buffer.byteLength).toBe(MiB + 3);
      expect(first.buffer).not.toBe(second.buffer);
      first[0] = 99;
      expect(second[0]).toBe(2);
      // Two live arrays of MiB + 3 bytes: two 2 MiB blocks of one 16 MiB chunk.
      expect(device.memoryInfo().pinnedHost).toBe(16 * MiB);
      const held: Uint8Array[] = [];
      for (let i = 0; i < 7; i++) held.push(await device.download(big));
      // Nine live 2 MiB blocks: a second chunk.
      expect(device.memoryInfo().pinnedHost).toBe(32 * MiB);
      expect(new Set([first, second, ...held].map((array) => array.buffer)).size).toBe(9);
      device.close();
    });

    it('keeps at most 256 MiB pinned and downloads the rest into pageable memory, every byte right; pinnedBlockFree says which', async () => {
      const device = openDevice();
      const source = await device.upload(pattern(64 * MiB, 3));
      const held: Uint8Array[] = [];
      for (let i = 0; i < 4; i++) {
        expect(device.pinnedBlockFree(64 * MiB)).toBe(true);
        held.push(await device.download(source));
      }
      expect(device.memoryInfo().pinnedHost).toBe(256 * MiB);
      expect(device.pinnedBlockFree(64 * MiB)).toBe(false); // the fifth goes to pageable memory
      expect(device.pinnedBlockFree(32 * MiB)).toBe(false); // no room to pin a block of another class either
      expect(device.pinnedBlockFree(1000)).toBe(true); // small downloads never need one
      held.push(await device.download(source));
      expect(device.memoryInfo().pinnedHost).toBe(256 * MiB);
      expect(() => device.pinnedBlockFree(-1)).toThrow(/bytes must be a byte count/);
      const expected = pattern(64 * MiB, 3);
      for (const array of held) expect(Buffer.compare(array, expected)).toBe(0);
      device.close();
    });

    it('at the limit with no idle chunk, lends a free block of a larger class to a smaller download, and takes it back', async () => {
      const device = openDevice();
      const three = await device.upload(pattern(3 * MiB, 5)); // the 4 MiB class: four blocks per 16 MiB chunk
      const one = await device.upload(pattern(MiB, 6));
      // Fill the limit (sixteen chunks) and keep one block of each chunk: no chunk is idle, 48 blocks are free.
      const keepOnePerChunk = async (): Promise<Uint8Array[]> => {
        const all: Uint8Array[] = [];
        for (let i = 0; i < 64; i++) all.push(await device.download(three));
        return all.filter((_, i) => i % 4 === 0);
      };
      const kept = await keepOnePerChunk();
      await collectGarbage();
      expect(device.memoryInfo().pinnedHost).toBe(256 * MiB);
      expect(device.pinnedBlockFree(MiB)).toBe(true); // no room to pin a 1 MiB chunk, but a larger block is free
      /** How many 3 MiB downloads find a pinned block now (the arrays die when it returns). */
      const pinnedThrees = async (): Promise<number> => {
        const held: Uint8Array[] = [];
        while (device.pinnedBlockFree(3 * MiB)) held.push(await device.download(three));
        return held.length;
      };
      const whileBorrowed = async (): Promise<[boolean, number]> => {
        const borrowed = await device.download(one);
        return [Buffer.compare(borrowed, pattern(MiB, 6)) === 0, await pinnedThrees()];
      };
      expect(await whileBorrowed()).toEqual([true, 47]); // the 1 MiB array holds one of the 48 free 4 MiB blocks
      await collectGarbage();
      expect(await pinnedThrees()).toBe(48); // back in the 4 MiB class
      expect(kept.length).toBe(16);
      device.close();
    });

    it('at the limit, carves an idle chunk of another class into blocks of the size now downloaded', async () => {
      const device = openDevice();
      const three = await device.upload(pattern(3 * MiB, 7)); // the 4 MiB class
      const one = await device.upload(pattern(MiB, 8)); // the 1 MiB class
      // 64 live 4 MiB blocks fill the limit (sixteen 16 MiB chunks); a helper drops them all when it returns.
      const fillLimit = async (): Promise<number> => {
        const held: Uint8Array[] = [];
        for (let i = 0; i < 64; i++) held.push(await device.download(three));
        return device.memoryInfo().pinnedHost;
      };
      expect(await fillLimit()).toBe(256 * MiB);
      await collectGarbage();
      // Twenty live 1 MiB arrays: two chunks carved again into 1 MiB blocks (lending 4 MiB blocks had taken twenty).
      const ones: Uint8Array[] = [];
      for (let i = 0; i < 20; i++) {
        expect(device.pinnedBlockFree(MiB)).toBe(true);
        ones.push(await device.download(one));
      }
      // The other fourteen chunks still hold 56 free 4 MiB blocks, and nothing more was pinned.
      const threes: Uint8Array[] = [];
      for (let i = 0; i < 56; i++) {
        expect(device.pinnedBlockFree(3 * MiB)).toBe(true);
        threes.push(await device.download(three));
      }
      expect(device.pinnedBlockFree(3 * MiB)).toBe(false);
      expect(device.memoryInfo().pinnedHost).toBe(256 * MiB);
      for (const array of ones) expect(Buffer.compare(array, pattern(MiB, 8))).toBe(0);
      for (const array of threes) expect(Buffer.compare(array, pattern(3 * MiB, 7))).toBe(0);
      device.close();
    });

    it('takes a block back when its array is collected, and reuses it for the next download of that size class', async () => {
      const device = openDevice();
      const source = await device.upload(pattern(3 * MiB, 4));
      // Each download's array is dropped when the helper returns (an async function's locals can outlive their block).
      const byteAt = async (index: number): Promise<number | undefined> => (await device.download(source))[index];
      for (let i = 0; i < 6; i++) {
        expect(await byteAt(5 + i)).toBe(((5 + i) * 7 + 4) & 255);
        await collectGarbage();
      }
      // One chunk (four 4 MiB blocks) serves all six downloads: each block came back before the next one.
      expect(device.memoryInfo().pinnedHost).toBe(16 * MiB);
      device.close();
    });
  },
);
