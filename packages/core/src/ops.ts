// Op descriptors: one discriminated union, generic over how a tensor is referenced.
// Users build ops over `Tensor`; backends receive the same ops over `BoundTensor` (a device buffer).
// Zero-size dimensions are allowed in every op: an output with a zero dimension is empty, and a sum over an empty
// dimension is 0 (matmul and quantizedMatmul with K = 0 give zeros, attention over Sk = 0 gives zeros,
// cosineSimilarity over D = 0 scores 0). Every output must stay within MAX_ELEMENTS (see limits.ts).
import type { DType } from './dtype.ts';

/** f32 (or f16) matrix product: a [M, K] x b [K, N] -> [M, N]; K = 0 gives zeros. */
export interface MatmulOp<T> {
  readonly op: 'matmul';
  /** Left operand, [M, K]. */
  readonly a: T;
  /** Right operand, [K, N], same dtype as a. */
  readonly b: T;
}

/** Quantized matrix product, ggml's mul_mat: x [M, K] f32 times weights w [N, K] (q8_0 / q4_0 rows) -> [M, N]. */
export interface QuantizedMatmulOp<T> {
  readonly op: 'quantizedMatmul';
  /** Activations, f32 [M, K]; K a multiple of 32. */
  readonly x: T;
  /** Weights, q8_0 or q4_0, [N, K]: one quantized row per output column. */
  readonly w: T;
}

/** q8_0 / q4_0 / f16 -> f32, same shape. */
export interface DequantizeOp<T> {
  readonly op: 'dequantize';
  /** The tensor to expand. */
  readonly x: T;
}

/** Elementwise a + b or a * b; b is the same shape as a, or broadcast over a's leading dimensions. */
export interface BinaryOp<T> {
  readonly op: 'add' | 'mul';
  /** Left operand. */
  readonly a: T;
  /** Right operand: a.shape, or a suffix of a.shape (broadcast). */
  readonly b: T;
}

/** x * factor. */
export interface ScaleOp<T> {
  readonly op: 'scale';
  /** Input. */
  readonly x: T;
  /** Multiplier. */
  readonly factor: number;
}

/** Row-wise softmax over the last dimension; rows that are entirely -inf (or masked) give zeros. */
export interface SoftmaxOp<T> {
  readonly op: 'softmax';
  /** Input [..., rows, cols]. */
  readonly x: T;
  /** Causal mask: row r sees columns c <= r + (cols - rows); the rest are treated as -inf. */
  readonly causal: boolean;
}

/** RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * weight. */
export interface RmsNormOp<T> {
  readonly op: 'rmsNorm';
  /** Input [..., N]. */
  readonly x: T;
  /** Per-channel gain [N]; omitted means 1. */
  readonly weight: T | undefined;
  /** Added to the mean square, e.g. 1e-5. */
  readonly eps: number;
}

/** How RoPE pairs dimensions: ggml's 'normal' mode rotates (2i, 2i+1); 'neox' rotates (i, i + D/2). */
export type RopeMode = 'interleaved' | 'neox';

/** Rotary position embedding on x [seq, heads, headDim]; token s has position positionOffset + s. */
export interface RopeOp<T> {
  readonly op: 'rope';
  /** Input [seq, heads, headDim], headDim even. */
  readonly x: T;
  /** Position of the first row. */
  readonly positionOffset: number;
  /** Frequency base theta, 10000 for Llama. */
  readonly base: number;
  /** Pairing of dimensions. */
  readonly mode: RopeMode;
}

/** x * sigmoid(x). */
export interface SiluOp<T> {
  readonly op: 'silu';
  /** Input. */
  readonly x: T;
}

/** silu(gate) * up, the Llama MLP's gating. */
export interface SwigluOp<T> {
  readonly op: 'swiglu';
  /** Gate projection. */
  readonly gate: T;
  /** Up projection, same shape as gate. */
  readonly up: T;
}

/** Multi-head scaled dot-product attention with grouped KV heads; a query that sees no key (Sk = 0) gives zeros. */
export interface AttentionOp<T> {
  readonly op: 'attention';
  /** Queries [Sq, H, D]. */
  readonly q: T;
  /** Keys [Sk, Hkv, D], H a multiple of Hkv. */
  readonly k: T;
  /** Values [Sk, Hkv, D]. */
  readonly v: T;
  /** Query i (absolute position Sk - Sq + i) attends only keys at positions <= its own. */
  readonly causal: boolean;
  /** Logit scale; 1/sqrt(D) when omitted. */
  readonly scale: number | undefined;
}

/**
 * Cosine similarity of each query against each target: [Q, D] x [T, D] -> [Q, T]. Every backend follows these rules
 * (the reference in float64 defines them; test/conformance/cases/search.ts checks them):
 * 1. a NaN anywhere in the query or the target -> NaN;
 * 2. else a zero vector (every entry +-0) on either side -> 0;
 * 3. else an infinity in either vector -> NaN (such a vector has no direction);
 * 4. else q . t / (|q| |t|), independent of the vectors' lengths: entries from 1e-30 to 3e38 score as unit vectors
 *    do (f32 kernels recompute a row whose f32 sum of squares under- or overflows, scaled by a power of two).
 * GPUs may flush subnormal entries to zero, so a row of only subnormals may count as a zero vector there.
 */
export interface CosineSimilarityOp<T> {
  readonly op: 'cosineSimilarity';
  /** Queries [Q, D] (or one query [D]). */
  readonly queries: T;
  /** Targets [T, D]. */
  readonly targets: T;
}

/** The k largest values of each row, descending; ties go to the lower index, NaN ranks below -inf. */
export interface TopKOp<T> {
  readonly op: 'topK';
  /** Input [rows, N] (or [N]). */
  readonly x: T;
  /** How many to keep, 1 <= k <= N. */
  readonly k: number;
}

/**
 * Spreading activation over a weighted CSR graph, `iterations` times:
 *   next[j] = a[j] + decay * sum over edges i->j with a[i] >= threshold of w(i,j) * a[i]
 * The engine checks the CSR arrays before any backend runs them (csr-check.ts), once per (rowPtr, colIdx) pair.
 */
export interface SpreadActivationOp<T> {
  readonly op: 'spreadActivation';
  /** CSR row pointers, u32 [nodes + 1]. */
  readonly rowPtr: T;
  /** CSR column (target node) indices, u32 [edges]. */
  readonly colIdx: T;
  /** Edge weights, f32 [edges]. */
  readonly weights: T;
  /** Starting activation, f32 [nodes]. */
  readonly initial: T;
  /** Multiplier per hop, 0 < decay <= 1. */
  readonly decay: number;
  /** Nodes below this activation do not spread. */
  readonly threshold: number;
  /** Hops, >= 1. */
  readonly iterations: number;
}

/**
 * Concatenation along axis 0 of row-major tensors: a [Ra, ...rest] then b [Rb, ...rest] -> [Ra + Rb, ...rest].
 * Same dtype (any dtype but the quantized ones), same trailing shape, rank >= 1; Ra or Rb may be 0. An exact copy of
 * the bytes: the output holds a's bytes then b's. Growing a KV cache on the device that holds it is its use.
 */
export interface ConcatOp<T> {
  readonly op: 'concat';
  /** The leading rows, [Ra, ...rest]. */
  readonly a: T;
  /** The rows appended after a, [Rb, ...rest], same dtype as a. */
  readonly b: T;
}

/** Every op Tandem knows, over tensor references of type T. */
export type Op<T> =
  | MatmulOp<T>
  | QuantizedMatmulOp<T>
  | DequantizeOp<T>
  | BinaryOp<T>
  | ScaleOp<T>
  | SoftmaxOp<T>
  | RmsNormOp<T>
  | RopeOp<T>
  | SiluOp<T>
  | SwigluOp<T>
  | AttentionOp<T>
  | CosineSimilarityOp<T>
  | TopKOp<T>
  | SpreadActivationOp<T>
  | ConcatOp<T>;

/** The op ids; one id names the kernel file in every backend and the telemetry key. */
export type OpKind = Op<unknown>['op'];

/** Every op id, in a stable order. */
export const OP_KINDS: readonly OpKind[] = [
  'matmul',
  'quantizedMatmul',
  'dequantize',
  'add',
  'mul',
  'scale',
  'softmax',
  'rmsNorm',
  'rope',
  'silu',
  'swiglu',
  'attention',
  'cosineSimilarity',
  'topK',
  'spreadActivation',
  'concat',
];

/** What a tensor looks like without its data. */
export interface TensorSpec {
  /** Element type. */
  readonly dtype: DType;
  /** Dimensions, row-major. */
  readonly shape: readonly number[];
}

/** Rewrites every tensor of an op with `fn`, keeping the op's parameters. */
export function mapOpTensors<A, B>(op: Op<A>, fn: (t: A, name: string) => B): Op<B> {
  switch (op.op) {
    case 'matmul':
      return { op: 'matmul', a: fn(op.a, 'a'), b: fn(op.b, 'b') };
    case 'quantizedMatmul':
      return { op: 'quantizedMatmul', x: fn(op.x, 'x'), w: fn(op.w, 'w') };
    case 'dequantize':
      return { op: 'dequantize', x: fn(op.x, 'x') };
    case 'add':
    case 'mul':
      return { op: op.op, a: fn(op.a, 'a'), b: fn(op.b, 'b') };
    case 'concat':
      return { op: 'concat', a: fn(op.a, 'a'), b: fn(op.b, 'b') };
    case 'scale':
      return { op: 'scale', x: fn(op.x, 'x'), factor: op.factor };
    case 'softmax':
      return { op: 'softmax', x: fn(op.x, 'x'), causal: op.causal };
    case 'rmsNorm':
      return { op: 'rmsNorm', x: fn(op.x, 'x'), weight: op.weight === undefined ? undefined : fn(op.weight, 'weight'), eps: op.eps };
    case 'rope':
      return { op: 'rope', x: fn(op.x, 'x'), positionOffset: op.positionOffset, base: op.base, mode: op.mode };
    case 'silu':
      return { op: 'silu', x: fn(op.x, 'x') };
    case 'swiglu':
      return { op: 'swiglu', gate: fn(op.gate, 'gate'), up: fn(op.up, 'up') };
    case 'attention':
      return { op: 'attention', q: fn(op.q, 'q'), k: fn(op.k, 'k'), v: fn(op.v, 'v'), causal: op.causal, scale: op.scale };
    case 'cosineSimilarity':
      return { op: 'cosineSimilarity', queries: fn(op.queries, 'queries'), targets: fn(op.targets, 'targets') };
    case 'topK':
      return { op: 'topK', x: fn(op.x, 'x'), k: op.k };
    case 'spreadActivation':
      return {
        op: 'spreadActivation',
        rowPtr: fn(op.rowPtr, 'rowPtr'),
        colIdx: fn(op.colIdx, 'colIdx'),
        weights: fn(op.weights, 'weights'),
        initial: fn(op.initial, 'initial'),
        decay: op.decay,
        threshold: op.threshold,
        iterations: op.iterations,
      };
  }
}

/** The tensors an op reads, with their parameter names, in a stable order (mapOpTensors' order). */
export function opInputs<T>(op: Op<T>): Array<{ name: string; tensor: T }> {
  // Written out rather than through mapOpTensors: this runs on every engine call and the rebuilt op is not needed.
  switch (op.op) {
    case 'matmul':
    case 'add':
    case 'mul':
    case 'concat':
      return [{ name: 'a', tensor: op.a }, { name: 'b', tensor: op.b }];
    case 'quantizedMatmul':
      return [{ name: 'x', tensor: op.x }, { name: 'w', tensor: op.w }];
    case 'dequantize':
    case 'scale':
    case 'softmax':
    case 'rope':
    case 'silu':
    case 'topK':
      return [{ name: 'x', tensor: op.x }];
    case 'rmsNorm':
      return op.weight === undefined ? [{ name: 'x', tensor: op.x }] : [{ name: 'x', tensor: op.x }, { name: 'weight', tensor: op.weight }];
    case 'swiglu':
      return [{ name: 'gate', tensor: op.gate }, { name: 'up', tensor: op.up }];
    case 'attention':
      return [{ name: 'q', tensor: op.q }, { name: 'k', tensor: op.k }, { name: 'v', tensor: op.v }];
    case 'cosineSimilarity':
      return [{ name: 'queries', tensor: op.queries }, { name: 'targets', tensor: op.targets }];
    case 'spreadActivation':
      return [{ name: 'rowPtr', tensor: op.rowPtr }, { name: 'colIdx', tensor: op.colIdx }, { name: 'weights', tensor: op.weights }, { name: 'initial', tensor: op.initial }];
  }
}

/** The op's first input (the one whose dtype selects the kernel), without allocating. */
export function primaryInput<T>(op: Op<T>): T {
  switch (op.op) {
    case 'matmul':
    case 'add':
    case 'mul':
    case 'concat':
      return op.a;
    case 'quantizedMatmul':
    case 'dequantize':
    case 'scale':
    case 'softmax':
    case 'rmsNorm':
    case 'rope':
    case 'silu':
    case 'topK':
      return op.x;
    case 'swiglu':
      return op.gate;
    case 'attention':
      return op.q;
    case 'cosineSimilarity':
      return op.queries;
    case 'spreadActivation':
      return op.rowPtr;
  }
}
