// The reference's op dispatcher: an op over host tensors (raw bytes) in, its outputs as host tensors out.
// This is the oracle: the backend wraps it, and the conformance suite calls it directly.
import { byteLengthOf, inferOutputs, InvalidArgumentError, isQuantized, numel, opInputs, type DType, type Op } from '@tandem/core';
import { bytesOf, readF32, readU16, readU32 } from './bytes.ts';
import type { HostTensor } from './host-tensor.ts';
import { attention } from './kernels/attention.ts';
import { concat } from './kernels/concat.ts';
import { cosineSimilarity } from './kernels/cosine-similarity.ts';
import { dequantize, type DequantizableDType } from './kernels/dequantize.ts';
import { add, addF16, mul, mulF16, scale, scaleF16, silu, swiglu } from './kernels/elementwise.ts';
import { matmul, matmulF16 } from './kernels/matmul.ts';
import { quantizedMatmul } from './kernels/quantized-matmul.ts';
import { rmsNorm } from './kernels/rms-norm.ts';
import { rope } from './kernels/rope.ts';
import { softmax } from './kernels/softmax.ts';
import { spreadActivation } from './kernels/spread-activation.ts';
import { topK } from './kernels/top-k.ts';

/** Validates `op` (inferOutputs and byte lengths) and computes its outputs with the float64 reference kernels. */
export function computeReference(op: Op<HostTensor>): HostTensor[] {
  const specs = inferOutputs(op);
  for (const { name, tensor } of opInputs(op)) expectBytes(`${op.op}.${name}`, tensor);
  const results = computeBytes(op);
  return specs.map((spec, i) => {
    const data = results[i];
    const expected = byteLengthOf(spec.dtype, numel(spec.shape));
    if (data === undefined || data.byteLength !== expected) {
      throw new Error(`reference ${op.op}: output ${i} has ${data?.byteLength ?? 'no'} bytes, expected ${expected} (a bug in the reference)`);
    }
    return { dtype: spec.dtype, shape: [...spec.shape], data };
  });
}

function expectBytes(argument: string, t: HostTensor): void {
  const expected = byteLengthOf(t.dtype, numel(t.shape));
  if (t.data.byteLength !== expected) {
    throw new InvalidArgumentError(`${argument}.data.byteLength`, t.data.byteLength, `must be ${expected} for ${t.dtype} [${t.shape.join(', ')}]`);
  }
}

/** Dimension i of a tensor (negative counts from the end); 1 past the rank. */
function dim(t: HostTensor, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

function isDequantizable(dtype: DType): dtype is DequantizableDType {
  return dtype === 'f16' || isQuantized(dtype);
}

/** An f32 tensor's values. */
function f32(t: HostTensor, argument: string): Float32Array {
  return readF32(t.data, argument);
}

function computeBytes(op: Op<HostTensor>): Uint8Array[] {
  switch (op.op) {
    case 'matmul': {
      const [m, k, n] = [dim(op.a, 0), dim(op.a, 1), dim(op.b, 1)];
      if (op.a.dtype === 'f16') return [bytesOf(matmulF16(readU16(op.a.data), readU16(op.b.data), m, k, n))];
      return [bytesOf(matmul(f32(op.a, 'matmul.a'), f32(op.b, 'matmul.b'), m, k, n))];
    }
    case 'quantizedMatmul': {
      const wType = op.w.dtype;
      if (!isQuantized(wType)) throw new InvalidArgumentError('quantizedMatmul.w.dtype', wType, 'must be q8_0 or q4_0');
      return [bytesOf(quantizedMatmul(f32(op.x, 'quantizedMatmul.x'), op.w.data, wType, dim(op.x, 0), dim(op.x, 1), dim(op.w, 0)))];
    }
    case 'dequantize': {
      const dtype = op.x.dtype;
      if (!isDequantizable(dtype)) throw new InvalidArgumentError('dequantize.x.dtype', dtype, 'must be q8_0, q4_0 or f16');
      return [bytesOf(dequantize(dtype, op.x.data, numel(op.x.shape)))];
    }
    case 'add':
    case 'mul': {
      const f16 = op.op === 'add' ? addF16 : mulF16;
      const f32Kernel = op.op === 'add' ? add : mul;
      if (op.a.dtype === 'f16') return [bytesOf(f16(readU16(op.a.data), readU16(op.b.data)))];
      return [bytesOf(f32Kernel(f32(op.a, `${op.op}.a`), f32(op.b, `${op.op}.b`)))];
    }
    case 'scale':
      if (op.x.dtype === 'f16') return [bytesOf(scaleF16(readU16(op.x.data), op.factor))];
      return [bytesOf(scale(f32(op.x, 'scale.x'), op.factor))];
    case 'softmax': {
      const rows = op.x.shape.length >= 2 ? dim(op.x, -2) : 1;
      return [bytesOf(softmax(f32(op.x, 'softmax.x'), rows, dim(op.x, -1), op.causal))];
    }
    case 'rmsNorm': {
      const weight = op.weight === undefined ? undefined : f32(op.weight, 'rmsNorm.weight');
      return [bytesOf(rmsNorm(f32(op.x, 'rmsNorm.x'), dim(op.x, -1), weight, op.eps))];
    }
    case 'rope': {
      const params = { seq: dim(op.x, 0), heads: dim(op.x, 1), headDim: dim(op.x, 2), positionOffset: op.positionOffset, base: op.base, mode: op.mode };
      return [bytesOf(rope(f32(op.x, 'rope.x'), params))];
    }
    case 'silu':
      return [bytesOf(silu(f32(op.x, 'silu.x')))];
    case 'swiglu':
      return [bytesOf(swiglu(f32(op.gate, 'swiglu.gate'), f32(op.up, 'swiglu.up')))];
    case 'attention': {
      const dims = { sq: dim(op.q, 0), sk: dim(op.k, 0), heads: dim(op.q, 1), kvHeads: dim(op.k, 1), headDim: dim(op.q, 2) };
      return [bytesOf(attention(f32(op.q, 'attention.q'), f32(op.k, 'attention.k'), f32(op.v, 'attention.v'), dims, op.causal, op.scale))];
    }
    case 'cosineSimilarity': {
      const queries = op.queries.shape.length === 1 ? 1 : dim(op.queries, 0);
      const out = cosineSimilarity(f32(op.queries, 'cosineSimilarity.queries'), f32(op.targets, 'cosineSimilarity.targets'), queries, dim(op.targets, 0), dim(op.targets, 1));
      return [bytesOf(out)];
    }
    case 'topK': {
      const rows = op.x.shape.length === 1 ? 1 : dim(op.x, 0);
      const { values, indices } = topK(f32(op.x, 'topK.x'), rows, dim(op.x, -1), op.k);
      return [bytesOf(values), bytesOf(indices)];
    }
    case 'spreadActivation': {
      const graph = {
        rowPtr: readU32(op.rowPtr.data, 'spreadActivation.rowPtr'),
        colIdx: readU32(op.colIdx.data, 'spreadActivation.colIdx'),
        weights: f32(op.weights, 'spreadActivation.weights'),
      };
      const params = { decay: op.decay, threshold: op.threshold, iterations: op.iterations };
      return [bytesOf(spreadActivation(graph, f32(op.initial, 'spreadActivation.initial'), params))];
    }
    case 'concat':
      return [concat(op.a.data, op.b.data)];
  }
}
