import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { benchConfig, GPU_CONFIG, parseSizeList, repsFor, SOFTWARE_CONFIG } from './config.ts';

describe('webgpu bench config', () => {
  it('parses comma-separated positive integers', () => {
    expect(parseSizeList('X', '64, 128,256')).toEqual([64, 128, 256]);
  });

  it('rejects empty, zero, negative and fractional sizes with InvalidArgumentError', () => {
    for (const bad of ['', ' , ', '0', '-4', '1.5', '12,abc'])
      expect(() => parseSizeList('X', bad)).toThrow(InvalidArgumentError);
  });

  it('picks SwiftShader defaults without --gpu and GPU defaults with it', () => {
    expect(benchConfig(false, {}).matmulSizes).toEqual(SOFTWARE_CONFIG.matmulSizes);
    expect(benchConfig(true, {}).matmulSizes).toEqual(GPU_CONFIG.matmulSizes);
    expect(Math.max(...GPU_CONFIG.matmulSizes)).toBe(4096);
    expect(Math.max(...GPU_CONFIG.cosineSizes)).toBe(1_000_000);
  });

  it('takes overrides from the environment', () => {
    const c = benchConfig(true, {
      TANDEM_BENCH_WEBGPU_MATMUL_SIZES: '32,64',
      TANDEM_BENCH_WEBGPU_COSINE_SIZES: '1000',
      TANDEM_BENCH_WEBGPU_REPS: '5',
    });
    expect(c.matmulSizes).toEqual([32, 64]);
    expect(c.cosineSizes).toEqual([1000]);
    expect(c.latencySizes).toEqual(GPU_CONFIG.latencySizes);
    expect(c.maxReps).toBe(5);
  });

  it('never plans fewer than 3 repetitions', () => {
    expect(benchConfig(false, { TANDEM_BENCH_WEBGPU_REPS: '1' }).maxReps).toBe(3);
  });

  it('fits repetitions to the row budget, between 3 and maxReps', () => {
    const c = { ...SOFTWARE_CONFIG, maxReps: 10, rowBudgetMs: 1000 };
    expect(repsFor(c, 1)).toBe(10);
    expect(repsFor(c, 200)).toBe(5);
    expect(repsFor(c, 5000)).toBe(3);
    expect(repsFor(c, 0)).toBe(10);
  });
});
