// Every op property, in one list: properties-on.ts runs each on every backend under test (properties-wasm, -webgpu,
// -rocm.test.ts), and properties-self-check.test.ts runs each on deliberately wrong kernels, which it must catch.
import { checkable, type CheckableProperty } from '../property-support.ts';
import { concat, elementwiseF16, elementwiseF32, swiglu } from './elementwise.ts';
import { dequantizeCorrupt, matmulF16, matmulF32, quantizedCorrupt, quantizedQ4, quantizedQ8 } from './matmul.ts';
import { cosineExtremes, cosineZeroRows, spreadActivation, topK } from './search.ts';
import { attention, rope, softmaxRmsNorm } from './transformer.ts';

/** Every op property. */
export const PROPERTIES: readonly CheckableProperty[] = [
  checkable(elementwiseF32),
  checkable(swiglu),
  checkable(elementwiseF16),
  checkable(concat),
  checkable(matmulF32),
  checkable(matmulF16),
  checkable(quantizedQ8),
  checkable(quantizedQ4),
  checkable(dequantizeCorrupt),
  checkable(quantizedCorrupt),
  checkable(softmaxRmsNorm),
  checkable(rope),
  checkable(attention),
  checkable(topK),
  checkable(cosineZeroRows),
  checkable(cosineExtremes),
  checkable(spreadActivation),
];
