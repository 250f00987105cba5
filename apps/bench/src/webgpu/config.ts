// Sizes and repetitions of the webgpu suite, by machine (SwiftShader here, the H100 with --gpu), each
// overridable from the environment (comma-separated positive integers):
//   TANDEM_BENCH_WEBGPU_MATMUL_SIZES   square matmul n for the ours/tfjs/cuBLAS sweep
//   TANDEM_BENCH_WEBGPU_COSINE_SIZES   resident 768-d targets N for the cosine bandwidth sweep
//   TANDEM_BENCH_WEBGPU_LATENCY_SIZES  matmul n for the webgpu-vs-wasm latency sweep
//   TANDEM_BENCH_WEBGPU_ADD_SIZES      element counts for the elementwise (add) latency sweep
//   TANDEM_BENCH_WEBGPU_REPS           most timed repetitions per row (fewer when a call is slow, at least 3)
import { InvalidArgumentError } from '@tandem/core';

/** What the suite measures and how often. */
export interface WebGpuBenchConfig {
  /** Square f32 matmul sizes, ours vs tfjs-backend-webgpu. */
  readonly matmulSizes: readonly number[];
  /** Target counts for cosine similarity of one 768-d query. */
  readonly cosineSizes: readonly number[];
  /** Matmul sizes for latency webgpu vs wasm through the engine. */
  readonly latencySizes: readonly number[];
  /** Element counts for elementwise add, webgpu vs wasm. */
  readonly addSizes: readonly number[];
  /** Most timed repetitions per row. */
  readonly maxReps: number;
  /** Wall-time budget per row, ms: slow rows get fewer repetitions (never fewer than 3). */
  readonly rowBudgetMs: number;
  /** Limit for one measurement (one row), ms: past it the row becomes a failure verdict. */
  readonly rowTimeoutMs: number;
}

/** Embedding width of the cosine rows. */
export const COSINE_DIM = 768;

/** Defaults on a software GPU (SwiftShader on 2 cores): small, so the suite ends in a few minutes. */
export const SOFTWARE_CONFIG: WebGpuBenchConfig = {
  matmulSizes: [64, 128, 256, 512],
  cosineSizes: [16_384, 32_768, 65_536],
  latencySizes: [16, 32, 64, 128, 256],
  addSizes: [1_024, 16_384, 262_144, 1_048_576],
  maxReps: 10,
  rowBudgetMs: 4_000,
  rowTimeoutMs: 60_000,
};

/** Defaults on the GPU machine (--gpu). */
export const GPU_CONFIG: WebGpuBenchConfig = {
  matmulSizes: [256, 512, 1024, 2048, 4096],
  cosineSizes: [16_384, 65_536, 262_144, 1_000_000],
  latencySizes: [16, 32, 64, 128, 256, 512, 1024],
  addSizes: [1_024, 16_384, 262_144, 1_048_576, 4_194_304, 16_777_216],
  maxReps: 20,
  rowBudgetMs: 3_000,
  rowTimeoutMs: 60_000,
};

/** Parses "64,128, 256" into positive integers; throws InvalidArgumentError naming `name` otherwise. */
export function parseSizeList(name: string, text: string): number[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw new InvalidArgumentError(name, text, 'a comma-separated list of positive integers');
  return parts.map((p) => {
    const value = Number(p);
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new InvalidArgumentError(name, text, 'a comma-separated list of positive integers');
    return value;
  });
}

/** The configuration for this run: defaults for the machine, overridden by TANDEM_BENCH_WEBGPU_* from `env`. */
export function benchConfig(
  gpu: boolean,
  env: Readonly<Record<string, string | undefined>> = process.env,
): WebGpuBenchConfig {
  const base = gpu ? GPU_CONFIG : SOFTWARE_CONFIG;
  const list = (key: string, fallback: readonly number[]): readonly number[] => {
    const text = env[key];
    return text === undefined ? fallback : parseSizeList(key, text);
  };
  const repsText = env['TANDEM_BENCH_WEBGPU_REPS'];
  const reps = repsText === undefined ? [base.maxReps] : parseSizeList('TANDEM_BENCH_WEBGPU_REPS', repsText);
  return {
    ...base,
    matmulSizes: list('TANDEM_BENCH_WEBGPU_MATMUL_SIZES', base.matmulSizes),
    cosineSizes: list('TANDEM_BENCH_WEBGPU_COSINE_SIZES', base.cosineSizes),
    latencySizes: list('TANDEM_BENCH_WEBGPU_LATENCY_SIZES', base.latencySizes),
    addSizes: list('TANDEM_BENCH_WEBGPU_ADD_SIZES', base.addSizes),
    maxReps: Math.max(3, reps[0] ?? base.maxReps),
  };
}

/** Timed repetitions for a call that took `firstMs`: as many as fit the row budget, between 3 and maxReps. */
export function repsFor(config: WebGpuBenchConfig, firstMs: number): number {
  if (!(firstMs > 0)) return config.maxReps;
  return Math.max(3, Math.min(config.maxReps, Math.floor(config.rowBudgetMs / firstMs)));
}
