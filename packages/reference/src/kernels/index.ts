// The reference's kernel table: one kernel per op (it is the oracle, so every op has one), each in the file named
// after its op id; and every kernel function, exported as @tandem/reference's API.
import type { OpKind } from '@tandem/core';
import type { ReferenceKernel } from '../kernel-support.ts';
import { addKernel } from './add.ts';
import { attentionKernel } from './attention.ts';
import { concatKernel } from './concat.ts';
import { cosineSimilarityKernel } from './cosine_similarity.ts';
import { dequantizeKernel } from './dequantize.ts';
import { geluKernel } from './gelu.ts';
import { matmulKernel } from './matmul.ts';
import { mulKernel } from './mul.ts';
import { quantizedMatmulKernel } from './quantized_matmul.ts';
import { rmsNormKernel } from './rms_norm.ts';
import { ropeKernel } from './rope.ts';
import { scaleKernel } from './scale.ts';
import { siluKernel } from './silu.ts';
import { softmaxKernel } from './softmax.ts';
import { spreadActivationKernel } from './spread_activation.ts';
import { swigluKernel } from './swiglu.ts';
import { topKKernel } from './top_k.ts';

export * from './add.ts';
export * from './attention.ts';
export * from './concat.ts';
export * from './cosine_similarity.ts';
export * from './dequantize.ts';
export * from './gelu.ts';
export * from './matmul.ts';
export * from './mul.ts';
export * from './quantized_matmul.ts';
export * from './rms_norm.ts';
export * from './rope.ts';
export * from './scale.ts';
export * from './silu.ts';
export * from './softmax.ts';
export * from './spread_activation.ts';
export * from './swiglu.ts';
export * from './top_k.ts';

/** Every op's reference kernel, by op id. */
export const REFERENCE_KERNELS: { readonly [K in OpKind]: ReferenceKernel<K> } = {
  matmul: matmulKernel,
  quantizedMatmul: quantizedMatmulKernel,
  dequantize: dequantizeKernel,
  add: addKernel,
  mul: mulKernel,
  scale: scaleKernel,
  softmax: softmaxKernel,
  rmsNorm: rmsNormKernel,
  rope: ropeKernel,
  silu: siluKernel,
  gelu: geluKernel,
  swiglu: swigluKernel,
  attention: attentionKernel,
  cosineSimilarity: cosineSimilarityKernel,
  topK: topKKernel,
  spreadActivation: spreadActivationKernel,
  concat: concatKernel,
};
