// Entry of the Tandem kernels module: the kernels of every op (one file per op id, snake_case) and what the JS side
// needs to size scratch memory and place its heap. Only names listed here are exported from the .wasm. Helpers and
// kernels that are no op's (f16 conversion, HNSW search, the SIMD peak probe) live in shared/.
export { matmul_f32, matmul_f32_scratch_bytes } from './matmul_f32';
export { matmul_f32_shared, matmul_f32_shared_bytes, matmul_f32_shared_thread_bytes, matmul_f32_shared_reset } from './matmul_f32_shared';
export { quantized_matmul_q8_0, quantized_matmul_q4_0, quantized_matmul_scratch_bytes } from './quantized_matmul';
export { dequantize_q8_0, dequantize_q4_0, dequantize_f16 } from './dequantize';
export { f32_to_f16 } from './shared/f16_convert';
export { add_f32 } from './add';
export { mul_f32 } from './mul';
export { scale_f32 } from './scale';
export { silu_f32 } from './silu';
export { gelu_f32 } from './gelu';
export { swiglu_f32 } from './swiglu';
export { softmax_f32 } from './softmax';
export { rms_norm_f32 } from './rms_norm';
export { rope_f32, rope_scratch_bytes } from './rope';
export { attention_f32, attention_scratch_bytes } from './attention';
export { cosine_similarity_f32, cosine_similarity_scratch_bytes } from './cosine_similarity';
export { top_k_f32 } from './top_k';
export { spread_activation_f32, spread_activation_scratch_bytes, spread_scatter_f32, spread_combine_f32, spread_split_row, spread_zero } from './spread_activation';
export { concat_bytes } from './concat';
export { hnsw_header_bytes, hnsw_insert, hnsw_search } from './shared/hnsw';
export { simd_peak_f32 } from './shared/simd_peak';

/** First byte after the module's static data: the JS allocator owns memory from here up. */
export function heap_base(): usize {
  return __heap_base;
}
