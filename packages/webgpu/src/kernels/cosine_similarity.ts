// cosineSimilarity: LANES invocations per score, reading rows coalesced (wgsl/cosine_similarity.wgsl; the vec4 kernel
// for dims that are multiples of 4); targets past one storage binding are bound in aligned ranges, one dispatch each.
import { kernelByteLength } from '../device-layout.ts';
import { elementCountRefusal, output, type WebGpuKernel } from '../kernel-support.ts';
import { BufferRange, dispatch, linearGrid, STORAGE_OFFSET_ALIGNMENT, type Step } from '../plan.ts';
import { WGSL_KERNELS } from '../wgsl-kernels.generated.ts';

/** Workgroup size and invocations per score of the vec4 kernel (the fastest shape measured: docs/decisions.md, issue 29). */
const COSINE_VEC4_WG = 128;
const COSINE_VEC4_LANES = 8;
/** The same for the scalar kernel (dims not a multiple of 4). */
const COSINE_WG = 256;
const COSINE_LANES = 16;

/**
 * Target rows one cosine dispatch binds: as many as fit in `maxBindingBytes`, rounded down so that every range
 * starts at a multiple of STORAGE_OFFSET_ALIGNMENT bytes; 0 when not even one aligned group of rows fits.
 */
export function cosineTargetRowsPerBinding(dim: number, maxBindingBytes: number): number {
  const rowBytes = dim * 4;
  if (rowBytes === 0) return Number.MAX_SAFE_INTEGER;
  const fit = Math.floor(maxBindingBytes / rowBytes);
  const step = STORAGE_OFFSET_ALIGNMENT / gcd(rowBytes, STORAGE_OFFSET_ALIGNMENT);
  return fit - (fit % step);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The WebGPU backend's cosineSimilarity: every query against every target. */
export const cosineSimilarityKernel: WebGpuKernel<'cosineSimilarity'> = {
  plan(op, outputs, ctx) {
    const out = output(outputs, 0, 'cosineSimilarity');
    const [nt = 0, dim = 0] = op.targets.shape;
    const nq = op.queries.shape.length === 1 ? 1 : (op.queries.shape[0] ?? 0);
    // Rows of a multiple of 4 floats are read as vec4f (a quarter of the load instructions).
    const vec4 = dim % 4 === 0;
    const kernel = vec4 ? WGSL_KERNELS.cosine_similarity_vec4 : WGSL_KERNELS.cosine_similarity;
    const [wg, lanes] = vec4 ? [COSINE_VEC4_WG, COSINE_VEC4_LANES] : [COSINE_WG, COSINE_LANES];
    const rowsPerDispatch = cosineTargetRowsPerBinding(dim, ctx.limits.maxStorageBufferBindingSize);
    if (rowsPerDispatch === 0 && nt > 0)
      throw new RangeError(`cosineSimilarity: a target row of ${dim * 4} bytes does not fit one storage binding`);
    const steps: Step[] = [];
    for (let t0 = 0; t0 < nt; t0 += rowsPerDispatch) {
      const rows = Math.min(rowsPerDispatch, nt - t0);
      const targets = rows === nt ? op.targets.gpu : new BufferRange(op.targets.gpu, t0 * dim * 4, rows * dim * 4);
      const grid = linearGrid(Math.ceil((nq * rows) / (wg / lanes)), ctx.limits);
      steps.push(
        dispatch(
          kernel,
          { queries: op.queries.gpu, targets, out: out.gpu },
          { nq, nt: rows, dim, out_nt: nt, t0 },
          { WG: wg, LANES: lanes },
          grid,
        ),
      );
    }
    return steps;
  },
  rangedInput: 'targets',
  // The targets may exceed one binding (bound in aligned ranges) but not one buffer.
  refuse(op, limits) {
    const bytes = kernelByteLength(op.targets);
    if (bytes > limits.maxBufferSize)
      return `cosineSimilarity.targets needs a ${bytes}-byte buffer; maxBufferSize is ${limits.maxBufferSize}`;
    const dim = op.targets.shape[1] ?? 0;
    if (
      bytes > limits.maxStorageBufferBindingSize &&
      cosineTargetRowsPerBinding(dim, limits.maxStorageBufferBindingSize) === 0
    ) {
      return `cosineSimilarity.targets rows of ${dim * 4} bytes cannot be bound in ${STORAGE_OFFSET_ALIGNMENT}-byte-aligned ranges within maxStorageBufferBindingSize ${limits.maxStorageBufferBindingSize}`;
    }
    return elementCountRefusal(op, limits);
  },
};
