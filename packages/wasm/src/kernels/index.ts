// The wasm backend's kernel table: at most one kernel per op (an op without one is not capable, and running it is
// an error), each in the file named after its op id; the unary elementwise ops all run through one generic kernel.
import { UNARY_OP_KINDS, type OpKind, type UnaryOpKind } from '@tandem/core';
import { unaryKernel, type WasmKernel } from '../kernel-support.ts';
import { addKernel } from './add.ts';
import { attentionKernel } from './attention.ts';
import { concatKernel } from './concat.ts';
import { cosineSimilarityKernel } from './cosine_similarity.ts';
import { dequantizeKernel } from './dequantize.ts';
import { matmulKernel } from './matmul.ts';
import { mulKernel } from './mul.ts';
import { quantizedMatmulKernel } from './quantized_matmul.ts';
import { rmsNormKernel } from './rms_norm.ts';
import { ropeKernel } from './rope.ts';
import { scaleKernel } from './scale.ts';
import { softmaxKernel } from './softmax.ts';
import { spreadActivationKernel } from './spread_activation.ts';
import { swigluKernel } from './swiglu.ts';
import { topKKernel } from './top_k.ts';

/** A kernel table of the wasm backend. */
export type WasmKernelTable = { readonly [K in OpKind]?: WasmKernel<K> };

/** The unary family's kernels, one per unary op. */
function unaryKernels(): { [K in UnaryOpKind]?: WasmKernel<K> } {
  const table: { [K in UnaryOpKind]?: WasmKernel<K> } = {};
  for (const kind of UNARY_OP_KINDS) table[kind] = unaryKernel(kind);
  return table;
}

/** Every op the wasm backend runs. */
export const WASM_KERNELS: WasmKernelTable = {
  ...unaryKernels(),
  matmul: matmulKernel,
  quantizedMatmul: quantizedMatmulKernel,
  dequantize: dequantizeKernel,
  add: addKernel,
  mul: mulKernel,
  scale: scaleKernel,
  softmax: softmaxKernel,
  rmsNorm: rmsNormKernel,
  rope: ropeKernel,
  swiglu: swigluKernel,
  attention: attentionKernel,
  cosineSimilarity: cosineSimilarityKernel,
  topK: topKKernel,
  spreadActivation: spreadActivationKernel,
  concat: concatKernel,
};
