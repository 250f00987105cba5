// The kernel module's exports, typed. Pointers are byte offsets in linear memory (u32 in wasm; a JS number here),
// booleans are 0 / 1. Each export's arity is checked against this table at load, so a signature that drifted in
// wasm-kernels/ fails init() with a clear reason instead of running with shifted arguments. The unary elementwise
// ops (core's unary family) need no entry here: each is the export `<op>_f32(x, out, n)`, bound when present.
import { UNARY_OP_KINDS, type UnaryOpKind } from '@tandem/core';

/** Every export of tandem-*.wasm that the backend calls. */
export interface KernelExports {
  heap_base(): number;
  matmul_f32(a: number, b: number, c: number, m: number, k: number, n: number, scratch: number): void;
  matmul_f32_scratch_bytes(m: number, k: number, n: number): number;
  matmul_f32_shared(
    a: number,
    b: number,
    c: number,
    m: number,
    k: number,
    n: number,
    shared: number,
    own: number,
    chunkRows: number,
  ): void;
  matmul_f32_shared_bytes(k: number, n: number): number;
  matmul_f32_shared_thread_bytes(): number;
  matmul_f32_shared_reset(shared: number): void;
  quantized_matmul_q8_0(x: number, w: number, out: number, m: number, k: number, n: number, scratch: number): void;
  quantized_matmul_q4_0(x: number, w: number, out: number, m: number, k: number, n: number, scratch: number): void;
  quantized_matmul_scratch_bytes(m: number, k: number, n: number): number;
  dequantize_q8_0(src: number, dst: number, count: number): void;
  dequantize_q4_0(src: number, dst: number, count: number): void;
  dequantize_f16(src: number, dst: number, count: number): void;
  f32_to_f16(src: number, dst: number, count: number): void;
  add_f32(a: number, b: number, out: number, n: number, bn: number): void;
  mul_f32(a: number, b: number, out: number, n: number, bn: number): void;
  scale_f32(x: number, out: number, n: number, factor: number): void;
  swiglu_f32(gate: number, up: number, out: number, n: number): void;
  softmax_f32(x: number, out: number, totalRows: number, rows: number, cols: number, causal: number): void;
  rms_norm_f32(x: number, weight: number, out: number, rows: number, n: number, eps: number): void;
  rope_f32(
    x: number,
    out: number,
    seq: number,
    heads: number,
    dim: number,
    positionOffset: number,
    base: number,
    neox: number,
    scratch: number,
  ): void;
  rope_scratch_bytes(seq: number, dim: number): number;
  attention_f32(
    q: number,
    k: number,
    v: number,
    out: number,
    sq: number,
    sk: number,
    heads: number,
    kvHeads: number,
    dim: number,
    scale: number,
    causal: number,
    scratch: number,
    rowBegin: number,
    rowEnd: number,
  ): void;
  attention_scratch_bytes(sk: number): number;
  cosine_similarity_f32(
    queries: number,
    targets: number,
    out: number,
    nq: number,
    nt: number,
    dim: number,
    tBegin: number,
    tEnd: number,
    scratch: number,
    targetNorms: number,
    normsReady: number,
  ): void;
  cosine_similarity_scratch_bytes(nq: number, dim: number): number;
  top_k_f32(x: number, values: number, indices: number, rows: number, n: number, k: number): void;
  spread_activation_f32(
    rowPtr: number,
    colIdx: number,
    weights: number,
    initial: number,
    out: number,
    scratch: number,
    nodes: number,
    edges: number,
    decay: number,
    threshold: number,
    iterations: number,
    rows: number,
  ): void;
  spread_activation_scratch_bytes(nodes: number): number;
  spread_scatter_f32(
    rowPtr: number,
    colIdx: number,
    weights: number,
    current: number,
    sums: number,
    nodes: number,
    edges: number,
    threshold: number,
    rowBegin: number,
    rowEnd: number,
  ): void;
  spread_combine_f32(
    current: number,
    next: number,
    sums: number,
    parts: number,
    nodes: number,
    decay: number,
    begin: number,
    end: number,
  ): void;
  spread_split_row(rowPtr: number, nodes: number, edges: number, part: number, parts: number): number;
  spread_zero(at: number, bytes: number): void;
  concat_bytes(a: number, aBytes: number, b: number, bBytes: number, out: number): void;
  hnsw_header_bytes(): number;
  hnsw_insert(graph: number, node: number, level: number): void;
  hnsw_search(graph: number, query: number, k: number, ef: number, ids: number, dist: number): number;
  simd_peak_f32(iterations: number, seed: number): number;
}

/** An export's name. */
export type KernelName = keyof KernelExports;

/** One kernel call by name, as sent to a worker thread. */
export interface KernelCall {
  /** Which export. */
  readonly name: KernelName;
  /** Its arguments (pointers, sizes, 0/1 flags, floats). */
  readonly args: readonly number[];
}

/** An elementwise kernel of a unary op: out[i] = f(x[i]) for i < n, all f32. */
export type UnaryKernel = (x: number, out: number, n: number) => number;

/** The typed exports plus a by-name call (the calling thread's share of a parallel op). */
export interface Kernels extends KernelExports {
  /** Calls an export by name. */
  invoke(call: KernelCall): number;
  /** The unary ops' kernels the module exports (`<op>_f32`); an op missing here is not capable. */
  readonly unary: ReadonlyMap<UnaryOpKind, UnaryKernel>;
}

/** The export name of a unary op's f32 kernel. */
export function unaryExportName<K extends UnaryOpKind>(op: K): `${K}_f32` {
  return `${op}_f32`;
}

/** Every unary op's kernel the module exports, each checked to take (x, out, n). */
function bindUnaryKernels(exports: object): Map<UnaryOpKind, UnaryKernel> {
  const bound = new Map<UnaryOpKind, UnaryKernel>();
  for (const op of UNARY_OP_KINDS) {
    const name = unaryExportName(op);
    const fn: unknown = Reflect.get(exports, name);
    if (fn === undefined) continue;
    if (typeof fn !== 'function' || fn.length !== 3)
      throw new Error(`kernel '${name}' must be a function of (x, out, n) (rebuild the kernels)`);
    bound.set(op, (x, out, n) => Number(Reflect.apply(fn, undefined, [x, out, n])) >>> 0);
  }
  return bound;
}

/** Parameter count of every export (what Function.length reports for a wasm export). */
const ARITY: { readonly [K in KernelName]: number } = {
  heap_base: 0,
  matmul_f32: 7,
  matmul_f32_scratch_bytes: 3,
  matmul_f32_shared: 9,
  matmul_f32_shared_bytes: 2,
  matmul_f32_shared_thread_bytes: 0,
  matmul_f32_shared_reset: 1,
  quantized_matmul_q8_0: 7,
  quantized_matmul_q4_0: 7,
  quantized_matmul_scratch_bytes: 3,
  dequantize_q8_0: 3,
  dequantize_q4_0: 3,
  dequantize_f16: 3,
  f32_to_f16: 3,
  add_f32: 5,
  mul_f32: 5,
  scale_f32: 4,
  swiglu_f32: 4,
  softmax_f32: 6,
  rms_norm_f32: 6,
  rope_f32: 9,
  rope_scratch_bytes: 2,
  attention_f32: 14,
  attention_scratch_bytes: 1,
  cosine_similarity_f32: 11,
  cosine_similarity_scratch_bytes: 2,
  top_k_f32: 6,
  spread_activation_f32: 12,
  spread_activation_scratch_bytes: 1,
  spread_scatter_f32: 10,
  spread_combine_f32: 8,
  spread_split_row: 5,
  spread_zero: 2,
  concat_bytes: 5,
  hnsw_header_bytes: 0,
  hnsw_insert: 3,
  hnsw_search: 6,
  simd_peak_f32: 2,
};

function isKernelName(name: string): name is KernelName {
  return Object.hasOwn(ARITY, name);
}

/** Every kernel name, in a fixed order (workers receive it once and are then sent indices). */
export const KERNEL_NAMES: readonly KernelName[] = Object.keys(ARITY).filter(isKernelName);

/** Wraps one export; u32 results (pointers, byte counts) come back as non-negative numbers. */
function exported(exports: object, name: KernelName): (...args: number[]) => number {
  const fn: unknown = Reflect.get(exports, name);
  if (typeof fn !== 'function') throw new Error(`the kernel module has no export '${name}'`);
  if (fn.length !== ARITY[name])
    throw new Error(
      `kernel '${name}' takes ${fn.length} arguments; the backend passes ${ARITY[name]} (rebuild the kernels)`,
    );
  return (...args: number[]) => Number(Reflect.apply(fn, undefined, args)) >>> 0;
}

/** Binds and checks every kernel of an instance's exports; throws naming the first one missing or mismatched. */
export function bindKernels(exports: object): Kernels {
  const bound = new Map<KernelName, (...args: number[]) => number>();
  const k = (name: KernelName): ((...args: number[]) => number) => {
    const fn = exported(exports, name);
    bound.set(name, fn);
    return fn;
  };
  return {
    invoke: (call) => {
      const fn = bound.get(call.name);
      if (fn === undefined) throw new Error(`no kernel '${call.name}'`);
      return fn(...call.args);
    },
    unary: bindUnaryKernels(exports),
    heap_base: k('heap_base'),
    matmul_f32: k('matmul_f32'),
    matmul_f32_scratch_bytes: k('matmul_f32_scratch_bytes'),
    matmul_f32_shared: k('matmul_f32_shared'),
    matmul_f32_shared_bytes: k('matmul_f32_shared_bytes'),
    matmul_f32_shared_thread_bytes: k('matmul_f32_shared_thread_bytes'),
    matmul_f32_shared_reset: k('matmul_f32_shared_reset'),
    quantized_matmul_q8_0: k('quantized_matmul_q8_0'),
    quantized_matmul_q4_0: k('quantized_matmul_q4_0'),
    quantized_matmul_scratch_bytes: k('quantized_matmul_scratch_bytes'),
    dequantize_q8_0: k('dequantize_q8_0'),
    dequantize_q4_0: k('dequantize_q4_0'),
    dequantize_f16: k('dequantize_f16'),
    f32_to_f16: k('f32_to_f16'),
    add_f32: k('add_f32'),
    mul_f32: k('mul_f32'),
    scale_f32: k('scale_f32'),
    swiglu_f32: k('swiglu_f32'),
    softmax_f32: k('softmax_f32'),
    rms_norm_f32: k('rms_norm_f32'),
    rope_f32: k('rope_f32'),
    rope_scratch_bytes: k('rope_scratch_bytes'),
    attention_f32: k('attention_f32'),
    attention_scratch_bytes: k('attention_scratch_bytes'),
    cosine_similarity_f32: k('cosine_similarity_f32'),
    cosine_similarity_scratch_bytes: k('cosine_similarity_scratch_bytes'),
    top_k_f32: k('top_k_f32'),
    spread_activation_f32: k('spread_activation_f32'),
    spread_activation_scratch_bytes: k('spread_activation_scratch_bytes'),
    spread_scatter_f32: k('spread_scatter_f32'),
    spread_combine_f32: k('spread_combine_f32'),
    spread_split_row: k('spread_split_row'),
    spread_zero: k('spread_zero'),
    concat_bytes: k('concat_bytes'),
    hnsw_header_bytes: k('hnsw_header_bytes'),
    hnsw_insert: k('hnsw_insert'),
    hnsw_search: k('hnsw_search'),
    simd_peak_f32: k('simd_peak_f32'),
  };
}
