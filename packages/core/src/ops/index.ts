// Every op Tandem knows, one definition per file (named after the op id in snake_case). The Op union, OP_KINDS, the
// tensor traversals, validation, the wire guard and default capabilities are all derived from this table.
import { add } from './add.ts';
import { attention } from './attention.ts';
import { concat } from './concat.ts';
import { cosineSimilarity } from './cosine_similarity.ts';
import { dequantize } from './dequantize.ts';
import { gelu } from './gelu.ts';
import { matmul } from './matmul.ts';
import { mul } from './mul.ts';
import { quantizedMatmul } from './quantized_matmul.ts';
import { rmsNorm } from './rms_norm.ts';
import { rope } from './rope.ts';
import { scale } from './scale.ts';
import { silu } from './silu.ts';
import { softmax } from './softmax.ts';
import { spreadActivation } from './spread_activation.ts';
import { swiglu } from './swiglu.ts';
import { topK } from './top_k.ts';

export type { AddOp } from './add.ts';
export type { AttentionOp } from './attention.ts';
export type { ConcatOp } from './concat.ts';
export type { CosineSimilarityOp } from './cosine_similarity.ts';
export type { DequantizeOp } from './dequantize.ts';
export type { GeluOp } from './gelu.ts';
export type { MatmulOp } from './matmul.ts';
export type { MulOp } from './mul.ts';
export type { QuantizedMatmulOp } from './quantized_matmul.ts';
export type { RmsNormOp } from './rms_norm.ts';
export type { RopeOp } from './rope.ts';
export type { ScaleOp } from './scale.ts';
export type { SiluOp } from './silu.ts';
export type { SoftmaxOp } from './softmax.ts';
export type { SpreadActivationOp } from './spread_activation.ts';
export type { SwigluOp } from './swiglu.ts';
export type { TopKOp } from './top_k.ts';

/** Every op's definition by op id, in a stable order (OP_KINDS' order). */
export const OP_DEFINITIONS = {
  matmul,
  quantizedMatmul,
  dequantize,
  add,
  mul,
  scale,
  softmax,
  rmsNorm,
  rope,
  silu,
  gelu,
  swiglu,
  attention,
  cosineSimilarity,
  topK,
  spreadActivation,
  concat,
} as const;
