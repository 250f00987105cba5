// The arithmetic of the ROCm suite's figures: FLOPs and bytes of each measured op, rates from times, and the
// nominal memory bandwidth the runtime's clocks imply. Pure functions, tested in figures.test.ts.
import { InvalidArgumentError } from '@tandem/core';

/** Bytes of one ggml block of 32 values: f16 scale + 32 int8 (Q8_0) or 16 bytes of nibbles (Q4_0). */
export const BLOCK_BYTES = { q4_0: 18, q8_0: 34 } as const;

/** A ggml block format the suite measures. */
export type BlockFormat = keyof typeof BLOCK_BYTES;

function requirePositive(argument: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError(argument, value, 'must be a finite number > 0');
}

/** FLOPs of an n x n by n x n matmul (one multiply and one add per term). */
export function matmulFlops(n: number): number {
  requirePositive('n', n);
  return 2 * n ** 3;
}

/** Rate in units per second: `amount` done in `ms` milliseconds, divided by `unit` (1e12 for TFLOP/s, 1e9 for GB/s). */
export function ratePerSecond(amount: number, ms: number, unit: number): number {
  requirePositive('ms', ms);
  requirePositive('unit', unit);
  return amount / (ms * 1e-3) / unit;
}

/** Bytes of a [rows, cols] matrix in a block format; cols must be a multiple of 32. */
export function blockMatrixBytes(format: BlockFormat, rows: number, cols: number): number {
  if (cols % 32 !== 0 || cols <= 0) throw new InvalidArgumentError('cols', cols, 'must be a positive multiple of 32');
  requirePositive('rows', rows);
  return (rows * cols * BLOCK_BYTES[format]) / 32;
}

/** Bytes a mat-vec reads and writes: weights [n, k] in `format`, x [1, k] f32 and out [1, n] f32. */
export function quantizedMatvecBytes(format: BlockFormat, n: number, k: number): number {
  return blockMatrixBytes(format, n, k) + 4 * k + 4 * n;
}

/** Bytes the cosine search streams: the resident targets alone ([targets, dim] f32), as the target counts them. */
export function cosineTargetBytes(targets: number, dim: number): number {
  requirePositive('targets', targets);
  requirePositive('dim', dim);
  return 4 * targets * dim;
}

/** Bytes an elementwise scale of `count` f32 moves: each read once and written once. */
export function scaleBytes(count: number): number {
  requirePositive('count', count);
  return 2 * 4 * count;
}

/** What the runtime says about memory (NativeDeviceInfo's fields). */
export interface MemoryClocks {
  /** Peak memory clock, kHz (0 when unknown). */
  readonly memoryClockKHz: number;
  /** Memory bus width, bits (0 when unknown). */
  readonly memoryBusWidthBits: number;
}

/** Nominal bandwidth in bytes/s (DDR/HBM: two transfers per clock across the bus); undefined when a field is 0. */
export function nominalBandwidth(clocks: MemoryClocks): number | undefined {
  if (clocks.memoryClockKHz <= 0 || clocks.memoryBusWidthBits <= 0) return undefined;
  return clocks.memoryClockKHz * 1e3 * 2 * (clocks.memoryBusWidthBits / 8);
}
