import { describe, expect, it } from 'vitest';
import { CopyTimes } from './copy-times.ts';

/**
 * A bus like rocm's on the H100 host since downloads land in pinned blocks: a copy under 64 KiB costs 0.02 ms,
 * one of 64 KiB or more 0.06 ms plus bytes at 40 GB/s (its fixed part is larger than the small copies').
 */
const pinnedBusMs = (bytes: number): number => (bytes < 65536 ? 0.02 : 0.06 + bytes / 4e7);
const KiB = 1024;
const MiB = 1024 * KiB;

describe('CopyTimes', () => {
  it('prices each size from copies of about that size, and sizes between them on the line through their neighbours', () => {
    const times = new CopyTimes(() => 5e6);
    for (let round = 0; round < 20; round++)
      for (const bytes of [16 * KiB, 256 * KiB, 1 * MiB, 4 * MiB]) times.observe(bytes, pinnedBusMs(bytes), false);
    for (const bytes of [16 * KiB, 256 * KiB, 1 * MiB, 4 * MiB])
      expect(times.estimateMs(bytes)).toBeCloseTo(pinnedBusMs(bytes), 6);
    // Between 1 and 4 MiB the bus is a line: interpolation is exact there.
    expect(times.estimateMs(2 * MiB)).toBeCloseTo(pinnedBusMs(2 * MiB), 6);
    // The single latency + bandwidth line this replaced (latency from the small copies, the rate a median over the
    // large ones) priced these at 0.285 ms for 4 MiB (the bus: 0.165) and 0.037 for 256 KiB (the bus: 0.067).
    expect(times.estimateMs(4 * MiB)).toBeLessThan(0.17);
    expect(times.estimateMs(256 * KiB)).toBeGreaterThan(0.06);
  });

  it('uses the prior rate before any copy, the smallest class below it and the largest class plus the faster rate above it', () => {
    const times = new CopyTimes(() => 1e6);
    expect(times.estimateMs(1 * MiB)).toBeCloseTo(MiB / 1e6, 9);
    for (let i = 0; i < 5; i++) times.observe(1 * MiB, 0.1, false); // 10.5 GB/s, faster than the prior
    expect(times.estimateMs(4 * KiB)).toBeCloseTo(0.1, 9);
    expect(times.estimateMs(2 * MiB)).toBeCloseTo(0.2, 9); // 1 MiB more at the class's own rate (1 MiB / 0.1 ms)
  });

  it('skips the first copy of each size (it pays for allocation) and keeps a few stalled copies from moving the median', () => {
    const times = new CopyTimes(() => 1e6);
    times.observe(1 * MiB, 3.4, false); // the first: a pinned chunk was allocated
    for (let i = 0; i < 10; i++) times.observe(1 * MiB, 0.1, false);
    for (let i = 0; i < 3; i++) times.observe(1 * MiB, 10, false); // a GC pause each
    expect(times.estimateMs(1 * MiB)).toBeCloseTo(0.1, 9);
  });

  it('leaves cold copies out unless eight in a row are all a size sees', () => {
    const times = new CopyTimes(() => 1e6);
    times.observe(1 * MiB, 0.1, false);
    for (let block = 0; block < 10; block++) {
      for (let i = 0; i < 2; i++) times.observe(1 * MiB, 0.5, true); // the first two after a pause
      for (let i = 0; i < 4; i++) times.observe(1 * MiB, 0.1, false);
    }
    expect(times.estimateMs(1 * MiB)).toBeCloseTo(0.1, 9);
    const alwaysCold = new CopyTimes(() => 1e6);
    for (let i = 0; i < 8; i++) alwaysCold.observe(1 * MiB, 0.5, true);
    expect(alwaysCold.points()).toEqual([]); // the first skipped, seven waiting: not yet
    alwaysCold.observe(1 * MiB, 0.5, true);
    expect(alwaysCold.estimateMs(1 * MiB)).toBeCloseTo(0.5, 9);
    alwaysCold.observe(1 * MiB, 0.1, false); // the first warm copy: cold ones no longer stand in for it
    expect(alwaysCold.estimateMs(1 * MiB)).toBeCloseTo(0.1, 9);
  });
});
