// An op over bound tensors as a native call: kernel id, input buffers in the kernel's order, and named
// parameters (native-rocm/src/op_table.cc reads the same names).
import { numel, type BoundTensor, type Op } from '@tandem/core';

/** What Device.run receives, minus the output sizes. */
export interface NativeCall {
  /** Native kernel id, e.g. "matmul_f32". */
  readonly kernel: string;
  /** Input tensors in the kernel's order. */
  readonly inputs: readonly BoundTensor[];
  /** Dimensions, factors and flags by name. */
  readonly params: Readonly<Record<string, number>>;
}

function dim(t: BoundTensor, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

function lastDim(t: BoundTensor): number {
  return t.shape.length === 0 ? 1 : dim(t, -1);
}

function rowsOf(t: BoundTensor): number {
  const cols = lastDim(t);
  return cols === 0 ? 0 : numel(t.shape) / cols;
}

/** How quantizedMatmul treats its f32 activations: 'f32' exact, 'q8' rounded to int8 per block of 32 (faster). */
export type QuantizedActivations = 'f32' | 'q8';

/** Choices that change how ops are encoded. */
export interface EncodeOptions {
  /** quantizedMatmul's activations (default 'f32'); 'q8' sets the native q8Activations parameter. */
  readonly quantizedActivations?: QuantizedActivations;
}

/** The native call for an op (shapes already validated by inferOutputs). */
export function encodeOp(op: Op<BoundTensor>, options: EncodeOptions = {}): NativeCall {
  switch (op.op) {
    case 'matmul':
      return { kernel: `matmul_${op.a.dtype}`, inputs: [op.a, op.b], params: { m: dim(op.a, 0), k: dim(op.a, 1), n: dim(op.b, 1) } };
    case 'quantizedMatmul': {
      const params = { m: dim(op.x, 0), k: dim(op.x, 1), n: dim(op.w, 0) };
      const q8 = options.quantizedActivations === 'q8';
      return { kernel: `quantized_matmul_${op.w.dtype}`, inputs: [op.x, op.w], params: q8 ? { ...params, q8Activations: 1 } : params };
    }
    case 'dequantize':
      return { kernel: `dequantize_${op.x.dtype}`, inputs: [op.x], params: { count: numel(op.x.shape) } };
    case 'add':
    case 'mul':
      return { kernel: `${op.op}_${op.a.dtype}`, inputs: [op.a, op.b], params: { count: numel(op.a.shape), bCount: numel(op.b.shape) } };
    case 'scale':
      return { kernel: `scale_${op.x.dtype}`, inputs: [op.x], params: { count: numel(op.x.shape), factor: op.factor } };
    case 'softmax':
      return {
        kernel: 'softmax_f32',
        inputs: [op.x],
        params: { rows: rowsOf(op.x), cols: lastDim(op.x), causalRows: op.causal ? dim(op.x, -2) : 0 },
      };
    case 'rmsNorm':
      return {
        kernel: 'rms_norm_f32',
        inputs: op.weight === undefined ? [op.x] : [op.x, op.weight],
        params: { rows: rowsOf(op.x), n: lastDim(op.x), eps: op.eps },
      };
    case 'rope':
      return {
        kernel: 'rope_f32',
        inputs: [op.x],
        params: { seq: dim(op.x, 0), heads: dim(op.x, 1), headDim: dim(op.x, 2), positionOffset: op.positionOffset, base: op.base, neox: op.mode === 'neox' ? 1 : 0 },
      };
    case 'silu':
      return { kernel: 'silu_f32', inputs: [op.x], params: { count: numel(op.x.shape) } };
    case 'swiglu':
      return { kernel: 'swiglu_f32', inputs: [op.gate, op.up], params: { count: numel(op.gate.shape) } };
    case 'attention': {
      const headDim = dim(op.q, 2);
      return {
        kernel: 'attention_f32',
        inputs: [op.q, op.k, op.v],
        params: {
          sq: dim(op.q, 0),
          heads: dim(op.q, 1),
          headDim,
          sk: dim(op.k, 0),
          kvHeads: dim(op.k, 1),
          causal: op.causal ? 1 : 0,
          scale: op.scale ?? 1 / Math.sqrt(headDim),
        },
      };
    }
    case 'cosineSimilarity':
      return {
        kernel: 'cosine_similarity_f32',
        inputs: [op.queries, op.targets],
        params: { queries: op.queries.shape.length === 1 ? 1 : dim(op.queries, 0), targets: dim(op.targets, 0), dim: lastDim(op.queries) },
      };
    case 'topK':
      return { kernel: 'top_k_f32', inputs: [op.x], params: { rows: op.x.shape.length === 1 ? 1 : dim(op.x, 0), n: lastDim(op.x), k: op.k } };
    case 'spreadActivation':
      return {
        kernel: 'spread_activation',
        inputs: [op.rowPtr, op.colIdx, op.weights, op.initial],
        params: { nodes: dim(op.initial, 0), edges: dim(op.colIdx, 0), decay: op.decay, threshold: op.threshold, iterations: op.iterations },
      };
    case 'concat':
      // Device-to-device copies on the backend's stream (native-rocm/src/op_table.cc); element counts, as bytes may pass 2^31.
      return { kernel: 'concat', inputs: [op.a, op.b], params: { aCount: numel(op.a.shape), bCount: numel(op.b.shape), elemBytes: op.a.dtype === 'f16' ? 2 : 4 } };
  }
}
