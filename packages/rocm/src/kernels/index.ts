// The kernels of the ROCm backend, one file per op id, each exported under its op id: kernel-table.ts
// spreads this module into the typed table (a kernel exported under another op's id does not compile there).
export { addKernel as add } from './add.ts';
export { attentionKernel as attention } from './attention.ts';
export { concatKernel as concat } from './concat.ts';
export { cosineSimilarityKernel as cosineSimilarity } from './cosine_similarity.ts';
export { dequantizeKernel as dequantize } from './dequantize.ts';
export { matmulKernel as matmul } from './matmul.ts';
export { mulKernel as mul } from './mul.ts';
export { quantizedMatmulKernel as quantizedMatmul } from './quantized_matmul.ts';
export { rmsNormKernel as rmsNorm } from './rms_norm.ts';
export { ropeKernel as rope } from './rope.ts';
export { scaleKernel as scale } from './scale.ts';
export { softmaxKernel as softmax } from './softmax.ts';
export { spreadActivationKernel as spreadActivation } from './spread_activation.ts';
export { swigluKernel as swiglu } from './swiglu.ts';
export { topKKernel as topK } from './top_k.ts';
