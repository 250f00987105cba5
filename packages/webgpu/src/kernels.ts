// Every WGSL kernel the backend dispatches, as data. Names match the declarations in wgsl/<shader>.wgsl.
import { defineKernel } from './kernel-spec.ts';

const READ = 'read';
const WRITE = 'read_write';

/** wgsl/add.wgsl: out = a + b (b broadcast). */
export const ADD = defineKernel({
  shader: 'add',
  entryPoint: 'main',
  bindings: [
    { name: 'a', access: READ },
    { name: 'b', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'n', type: 'u32' },
    { name: 'b_len', type: 'u32' },
  ],
  overrides: ['WG', 'ROUND_F16'],
});

/** wgsl/mul.wgsl: out = a * b (b broadcast). */
export const MUL = defineKernel({ ...ADD, shader: 'mul' });

/** wgsl/scale.wgsl: out = x * factor. */
export const SCALE = defineKernel({
  shader: 'scale',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'n', type: 'u32' },
    { name: 'factor', type: 'f32' },
  ],
  overrides: ['WG', 'ROUND_F16'],
});

/** wgsl/silu.wgsl: out = x * sigmoid(x). */
export const SILU = defineKernel({
  shader: 'silu',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [{ name: 'n', type: 'u32' }],
  overrides: ['WG'],
});

/** wgsl/swiglu.wgsl: out = silu(gate) * up. */
export const SWIGLU = defineKernel({
  shader: 'swiglu',
  entryPoint: 'main',
  bindings: [
    { name: 'gate', access: READ },
    { name: 'up', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [{ name: 'n', type: 'u32' }],
  overrides: ['WG'],
});

/** wgsl/softmax.wgsl: row-wise (optionally causal) softmax. */
export const SOFTMAX = defineKernel({
  shader: 'softmax',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'rows', type: 'u32' },
    { name: 'cols', type: 'u32' },
    { name: 'mat_rows', type: 'u32' },
    { name: 'causal', type: 'u32' },
  ],
  overrides: ['WG'],
});

/** wgsl/rms_norm.wgsl: RMSNorm over the last dimension. */
export const RMS_NORM = defineKernel({
  shader: 'rms_norm',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'weight', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'rows', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'eps', type: 'f32' },
    { name: 'has_weight', type: 'u32' },
  ],
  overrides: ['WG'],
});

/** wgsl/rope.wgsl: rotary position embedding. */
export const ROPE = defineKernel({
  shader: 'rope',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'seq', type: 'u32' },
    { name: 'heads', type: 'u32' },
    { name: 'head_dim', type: 'u32' },
    { name: 'position_offset', type: 'u32' },
    { name: 'log2_base', type: 'f32' },
    { name: 'neox', type: 'u32' },
  ],
  overrides: ['WG'],
});

/** wgsl/attention.wgsl: scaled dot-product attention with grouped KV heads. */
export const ATTENTION = defineKernel({
  shader: 'attention',
  entryPoint: 'main',
  bindings: [
    { name: 'q', access: READ },
    { name: 'k', access: READ },
    { name: 'v', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'sq', type: 'u32' },
    { name: 'sk', type: 'u32' },
    { name: 'heads', type: 'u32' },
    { name: 'kv_heads', type: 'u32' },
    { name: 'head_dim', type: 'u32' },
    { name: 'causal', type: 'u32' },
    { name: 'scale', type: 'f32' },
  ],
  overrides: ['WG', 'MAX_D'],
});

/** wgsl/cosine_similarity.wgsl: queries x targets cosine scores, LANES invocations per score. */
export const COSINE_SIMILARITY = defineKernel({
  shader: 'cosine_similarity',
  entryPoint: 'main',
  bindings: [
    { name: 'queries', access: READ },
    { name: 'targets', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'nq', type: 'u32' },
    { name: 'nt', type: 'u32' },
    { name: 'dim', type: 'u32' },
    { name: 'out_nt', type: 'u32' },
    { name: 't0', type: 'u32' },
  ],
  overrides: ['WG', 'LANES'],
});

/** wgsl/cosine_similarity_vec4.wgsl: cosine_similarity with rows read as vec4f, for dim a multiple of 4. */
export const COSINE_SIMILARITY_VEC4 = defineKernel({ ...COSINE_SIMILARITY, shader: 'cosine_similarity_vec4' });

/** wgsl/top_k.wgsl: k largest values per row with indices. */
export const TOP_K = defineKernel({
  shader: 'top_k',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'values', access: WRITE },
    { name: 'indices', access: WRITE },
  ],
  params: [
    { name: 'rows', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'k', type: 'u32' },
  ],
  overrides: ['WG'],
});

/** wgsl/spread_activation.wgsl: one hop of spreading activation (the host copies current into next first). */
export const SPREAD_ACTIVATION = defineKernel({
  shader: 'spread_activation',
  entryPoint: 'main',
  bindings: [
    { name: 'row_ptr', access: READ },
    { name: 'col_idx', access: READ },
    { name: 'weights', access: READ },
    { name: 'current', access: READ },
    { name: 'next', access: WRITE },
  ],
  params: [
    { name: 'nodes', type: 'u32' },
    { name: 'edges', type: 'u32' },
    { name: 'decay', type: 'f32' },
    { name: 'threshold', type: 'f32' },
  ],
  overrides: ['WG'],
});

/** wgsl/dequantize_q8_0.wgsl: Q8_0 blocks -> f32. */
export const DEQUANTIZE_Q8_0 = defineKernel({
  shader: 'dequantize_q8_0',
  entryPoint: 'main',
  bindings: [
    { name: 'blocks', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [{ name: 'n', type: 'u32' }],
  overrides: ['WG'],
});

/** wgsl/dequantize_q4_0.wgsl: Q4_0 blocks -> f32. */
export const DEQUANTIZE_Q4_0 = defineKernel({ ...DEQUANTIZE_Q8_0, shader: 'dequantize_q4_0' });

/** wgsl/quantized_matmul_q8_0.wgsl: x [M, K] times Q8_0 weights [N, K] transposed. */
export const QUANTIZED_MATMUL_Q8_0 = defineKernel({
  shader: 'quantized_matmul_q8_0',
  entryPoint: 'main',
  bindings: [
    { name: 'x', access: READ },
    { name: 'w', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'm', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'k', type: 'u32' },
    { name: 'row_groups', type: 'u32' },
  ],
  overrides: ['WG'],
});

/** wgsl/quantized_matmul_q4_0.wgsl: x [M, K] times Q4_0 weights [N, K] transposed. */
export const QUANTIZED_MATMUL_Q4_0 = defineKernel({ ...QUANTIZED_MATMUL_Q8_0, shader: 'quantized_matmul_q4_0' });

/** Output rows each quantized-matmul workgroup computes (TM in the shaders). */
export const QUANTIZED_MATMUL_ROWS = 4;

/** wgsl/matmul_f32.wgsl: tiled a x b for any sizes. */
export const MATMUL_F32 = defineKernel({
  shader: 'matmul_f32',
  entryPoint: 'main',
  bindings: [
    { name: 'a', access: READ },
    { name: 'b', access: READ },
    { name: 'out', access: WRITE },
  ],
  params: [
    { name: 'm', type: 'u32' },
    { name: 'n', type: 'u32' },
    { name: 'k', type: 'u32' },
  ],
  overrides: ['ROUND_F16'],
});

/** wgsl/matmul_f32_vec4.wgsl: tiled a x b with vec4 loads, for K and N multiples of 4. */
export const MATMUL_F32_VEC4 = defineKernel({ ...MATMUL_F32, shader: 'matmul_f32_vec4' });

/** Output rows and columns of one matmul workgroup's tile. */
export const MATMUL_TILE = 64;

/** wgsl/f16_unpack.wgsl: f16 stored as binary16 (two per word) -> f32, for the kernels to read. */
export const F16_UNPACK = defineKernel({
  shader: 'f16_unpack',
  entryPoint: 'main',
  bindings: [
    { name: 'src', access: READ },
    { name: 'dst', access: WRITE },
  ],
  params: [{ name: 'n', type: 'u32' }],
  overrides: ['WG'],
});

/** wgsl/f16_pack.wgsl: f32 -> binary16, two per word, for storing an f16 result. */
export const F16_PACK = defineKernel({ ...F16_UNPACK, shader: 'f16_pack' });

/** Every kernel, for the binding test and pipeline warm-up. */
export const ALL_KERNELS = [
  ADD,
  MUL,
  SCALE,
  SILU,
  SWIGLU,
  SOFTMAX,
  RMS_NORM,
  ROPE,
  ATTENTION,
  COSINE_SIMILARITY,
  COSINE_SIMILARITY_VEC4,
  TOP_K,
  SPREAD_ACTIVATION,
  DEQUANTIZE_Q8_0,
  DEQUANTIZE_Q4_0,
  QUANTIZED_MATMUL_Q8_0,
  QUANTIZED_MATMUL_Q4_0,
  MATMUL_F32,
  MATMUL_F32_VEC4,
  F16_UNPACK,
  F16_PACK,
] as const;
