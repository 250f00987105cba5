// How big each measurement is: issue #5's sizes on a GPU, tiny ones on the CPU emulation of HIP (which runs
// every GPU thread on the CPU: a 2,000-target cosine takes seconds there), so its code path runs in minutes.

/** Sizes and repetitions of one suite run. */
export interface RocmBenchSizes {
  /** Matmul sizes n (n x n . n x n), ascending; the last is the headline. */
  readonly matmulSizes: readonly number[];
  /** Timed matmul runs per size (kernel and engine each). */
  readonly matmulReps: number;
  /** f32 elements of the scale that measures the streaming peak (1 GiB = 2^28 on a GPU). */
  readonly scaleCount: number;
  /** Mat-vec output rows n (rows of W) and inner size k. */
  readonly matvecRows: number;
  /** Mat-vec inner size k (columns of W, length of x); a multiple of 32. */
  readonly matvecCols: number;
  /** Weight copies rotated between runs so the L2 cache cannot hold them. */
  readonly weightSets: number;
  /** Timed mat-vec runs per format. */
  readonly matvecReps: number;
  /** Cosine: resident targets and their dimension. */
  readonly cosineTargets: number;
  /** Cosine vector dimension. */
  readonly cosineDim: number;
  /** Timed runs of the bandwidth-bound kernels (scale, cosine). */
  readonly streamReps: number;
  /** Elements of the tiny add whose call overhead is measured. */
  readonly overheadElements: number;
  /** Timed tiny calls per path (after as many untimed ones as warmupCalls). */
  readonly overheadCalls: number;
  /** Untimed calls before each timing. */
  readonly warmupCalls: number;
  /** Entries (rows, targets) checked against the CPU reference per result. */
  readonly checkSamples: number;
}

/** Issue #5's sizes, for a GPU. */
export const GPU_SIZES: RocmBenchSizes = {
  matmulSizes: [256, 512, 1024, 2048, 4096],
  matmulReps: 10,
  scaleCount: 256 * 1024 * 1024,
  matvecRows: 11008,
  matvecCols: 4096,
  weightSets: 8,
  matvecReps: 40,
  cosineTargets: 1_000_000,
  cosineDim: 768,
  streamReps: 10,
  overheadElements: 16,
  overheadCalls: 2000,
  warmupCalls: 5,
  checkSamples: 64,
};

/** Tiny sizes for the CPU emulation: the same code path, figures that say nothing about a GPU. */
export const EMULATED_SIZES: RocmBenchSizes = {
  matmulSizes: [16, 32, 64, 128],
  matmulReps: 5,
  scaleCount: 4096,
  matvecRows: 32,
  matvecCols: 256,
  weightSets: 2,
  matvecReps: 3,
  cosineTargets: 64,
  cosineDim: 768,
  streamReps: 3,
  overheadElements: 16,
  overheadCalls: 100,
  warmupCalls: 2,
  checkSamples: 16,
};
