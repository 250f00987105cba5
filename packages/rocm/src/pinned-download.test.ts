// Downloads into pinned host blocks (native-rocm/src/host_pool.h) on the CPU emulation of HIP (skipped when
// build.mjs --variant emulated has not run): exact bytes, a block per live array carved from 16 MiB chunks, the
// 256 MiB limit with the pageable fallback beyond it (and pinnedBlockFree telling ahead), and blocks going back to
// the pool when their arrays are garbage-collected.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadAddon, type NativeDevice } from './index.ts';

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

describe.skipIf(!existsSync(EMULATED))('downloads into pinned host memory (emulated device)', () => {
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

  it('at the limit, lends a free block of a larger class to a smaller download, and takes it back to its own class', async () => {
    const device = openDevice();
    const big = await device.upload(pattern(64 * MiB, 5));
    const small = await device.upload(pattern(MiB, 6));
    const held: Uint8Array[] = [];
    for (let i = 0; i < 3; i++) held.push(await device.download(big));
    // The fourth 64 MiB block is taken and dropped: free in its class, with the limit reached.
    expect((await device.download(big))[3]).toBe((3 * 7 + 5) & 255);
    await collectGarbage();
    expect(device.memoryInfo().pinnedHost).toBe(256 * MiB);
    expect(device.pinnedBlockFree(64 * MiB)).toBe(true);
    expect(device.pinnedBlockFree(MiB)).toBe(true); // no room to pin a 1 MiB chunk, but a larger block is free
    // While the 1 MiB array lives it holds the 64 MiB block (a helper: its locals die with it).
    const whileBorrowed = async (): Promise<[boolean, boolean, number]> => {
      const borrowed = await device.download(small);
      return [Buffer.compare(borrowed, pattern(MiB, 6)) === 0, device.pinnedBlockFree(64 * MiB), device.memoryInfo().pinnedHost];
    };
    expect(await whileBorrowed()).toEqual([true, false, 256 * MiB]);
    await collectGarbage();
    expect(device.pinnedBlockFree(64 * MiB)).toBe(true); // back in the 64 MiB class
    expect(held.length).toBe(3);
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
});
