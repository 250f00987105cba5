// What core knows about each op without running it: validation, output specs, and how much work it is.
import { isQuantized, QUANT_BLOCK, type DType } from './dtype.ts';
import { InvalidArgumentError } from './errors.ts';
import { checkOutputShapes } from './limits.ts';
import type { Op, TensorSpec } from './ops.ts';
import { numel, sameShape } from './shape.ts';

/** How much an op does: the scheduler's cost model and the roofline prior use these. */
export interface OpWork {
  /** Arithmetic operations (a multiply-add counts 2). */
  readonly flops: number;
  /** Bytes read and written at minimum. */
  readonly bytes: number;
  /** Rows processed together (M of a matmul, queries of a search); compared with gpuMinBatchSize. */
  readonly batch: number;
}

function fail(op: string, arg: string, value: unknown, limit: string): never {
  throw new InvalidArgumentError(`${op}.${arg}`, value, limit);
}

function expectDType(op: string, arg: string, t: TensorSpec, allowed: readonly DType[]): void {
  if (!allowed.includes(t.dtype)) fail(op, `${arg}.dtype`, t.dtype, `must be one of ${allowed.join(', ')}`);
}

function expectRank(op: string, arg: string, t: TensorSpec, ranks: readonly number[]): void {
  if (!ranks.includes(t.shape.length)) fail(op, `${arg}.shape`, [...t.shape], `must have rank ${ranks.join(' or ')}`);
}

function expectFinite(op: string, arg: string, value: number): void {
  if (!Number.isFinite(value)) fail(op, arg, value, 'must be a finite number');
}

function dim(t: TensorSpec, i: number): number {
  return t.shape[i < 0 ? t.shape.length + i : i] ?? 1;
}

function lastDim(t: TensorSpec): number {
  return t.shape.length === 0 ? 1 : dim(t, -1);
}

const FLOATS: readonly DType[] = ['f32', 'f16'];
const UNQUANTIZED: readonly DType[] = ['f32', 'f16', 'i32', 'u32'];
const F32: readonly DType[] = ['f32'];

/**
 * Validates an op's inputs and parameters; returns the specs of its outputs, each within the element limit.
 * Throws InvalidArgumentError.
 */
export function inferOutputs(op: Op<TensorSpec>): TensorSpec[] {
  const outputs = outputSpecs(op);
  checkOutputShapes(op, outputs);
  return outputs;
}

function outputSpecs(op: Op<TensorSpec>): TensorSpec[] {
  const name = op.op;
  switch (op.op) {
    case 'matmul': {
      // Shapes read once (not through dim/expectRank): matmul is the engine's hottest small call.
      const a = op.a.shape;
      const b = op.b.shape;
      expectDType(name, 'a', op.a, FLOATS);
      if (op.b.dtype !== op.a.dtype) fail(name, 'b.dtype', op.b.dtype, `must equal a.dtype (${op.a.dtype})`);
      if (a.length !== 2) fail(name, 'a.shape', [...a], 'must have rank 2');
      if (b.length !== 2) fail(name, 'b.shape', [...b], 'must have rank 2');
      const k = a[1] ?? 1;
      const k2 = b[0] ?? 1;
      if (k2 !== k) fail(name, 'b.shape[0]', k2, `must equal a.shape[1] (${k})`);
      return [{ dtype: op.a.dtype, shape: [a[0] ?? 1, b[1] ?? 1] }];
    }
    case 'quantizedMatmul': {
      expectDType(name, 'x', op.x, F32);
      expectDType(name, 'w', op.w, ['q8_0', 'q4_0']);
      expectRank(name, 'x', op.x, [2]);
      expectRank(name, 'w', op.w, [2]);
      const k = dim(op.x, 1);
      if (dim(op.w, 1) !== k) fail(name, 'w.shape[1]', dim(op.w, 1), `must equal x.shape[1] (${k})`);
      if (k % QUANT_BLOCK !== 0) fail(name, 'x.shape[1]', k, `must be a multiple of ${QUANT_BLOCK} (quantization block)`);
      return [{ dtype: 'f32', shape: [dim(op.x, 0), dim(op.w, 0)] }];
    }
    case 'dequantize': {
      expectDType(name, 'x', op.x, ['q8_0', 'q4_0', 'f16']);
      return [{ dtype: 'f32', shape: op.x.shape }];
    }
    case 'add':
    case 'mul': {
      expectDType(name, 'a', op.a, FLOATS);
      if (op.b.dtype !== op.a.dtype) fail(name, 'b.dtype', op.b.dtype, `must equal a.dtype (${op.a.dtype})`);
      const suffix = op.a.shape.slice(op.a.shape.length - op.b.shape.length);
      if (op.b.shape.length > op.a.shape.length || !sameShape(suffix, op.b.shape)) {
        fail(name, 'b.shape', [...op.b.shape], `must equal a.shape [${op.a.shape.join(', ')}] or a suffix of it`);
      }
      return [{ dtype: op.a.dtype, shape: op.a.shape }];
    }
    case 'scale': {
      expectDType(name, 'x', op.x, FLOATS);
      expectFinite(name, 'factor', op.factor);
      return [{ dtype: op.x.dtype, shape: op.x.shape }];
    }
    case 'softmax': {
      expectDType(name, 'x', op.x, F32);
      if (op.x.shape.length < 1) fail(name, 'x.shape', [...op.x.shape], 'must have rank >= 1');
      if (op.causal && op.x.shape.length < 2) fail(name, 'x.shape', [...op.x.shape], 'must have rank >= 2 with causal: true');
      return [{ dtype: 'f32', shape: op.x.shape }];
    }
    case 'rmsNorm': {
      expectDType(name, 'x', op.x, F32);
      if (op.x.shape.length < 1) fail(name, 'x.shape', [...op.x.shape], 'must have rank >= 1');
      if (op.weight !== undefined) {
        expectDType(name, 'weight', op.weight, F32);
        if (!sameShape(op.weight.shape, [lastDim(op.x)])) fail(name, 'weight.shape', [...op.weight.shape], `must be [${lastDim(op.x)}]`);
      }
      if (!(op.eps >= 0) || !Number.isFinite(op.eps)) fail(name, 'eps', op.eps, 'must be a finite number >= 0');
      return [{ dtype: 'f32', shape: op.x.shape }];
    }
    case 'rope': {
      expectDType(name, 'x', op.x, F32);
      expectRank(name, 'x', op.x, [3]);
      if (lastDim(op.x) % 2 !== 0) fail(name, 'x.shape[2]', lastDim(op.x), 'must be even (head dimension)');
      if (!Number.isInteger(op.positionOffset) || op.positionOffset < 0) fail(name, 'positionOffset', op.positionOffset, 'must be an integer >= 0');
      if (!(op.base > 1) || !Number.isFinite(op.base)) fail(name, 'base', op.base, 'must be a finite number > 1');
      return [{ dtype: 'f32', shape: op.x.shape }];
    }
    case 'silu': {
      expectDType(name, 'x', op.x, F32);
      return [{ dtype: 'f32', shape: op.x.shape }];
    }
    case 'swiglu': {
      expectDType(name, 'gate', op.gate, F32);
      expectDType(name, 'up', op.up, F32);
      if (!sameShape(op.gate.shape, op.up.shape)) fail(name, 'up.shape', [...op.up.shape], `must equal gate.shape [${op.gate.shape.join(', ')}]`);
      return [{ dtype: 'f32', shape: op.gate.shape }];
    }
    case 'attention': {
      for (const [arg, t] of [['q', op.q], ['k', op.k], ['v', op.v]] as const) {
        expectDType(name, arg, t, F32);
        expectRank(name, arg, t, [3]);
      }
      const [heads, headDim, kvHeads] = [dim(op.q, 1), dim(op.q, 2), dim(op.k, 1)];
      if (dim(op.k, 2) !== headDim) fail(name, 'k.shape[2]', dim(op.k, 2), `must equal q.shape[2] (${headDim})`);
      if (!sameShape(op.v.shape, op.k.shape)) fail(name, 'v.shape', [...op.v.shape], `must equal k.shape [${op.k.shape.join(', ')}]`);
      if (kvHeads === 0 || heads % kvHeads !== 0) fail(name, 'k.shape[1]', kvHeads, `must divide q.shape[1] (${heads})`);
      if (op.causal && dim(op.q, 0) > dim(op.k, 0)) fail(name, 'q.shape[0]', dim(op.q, 0), `must be <= k.shape[0] (${dim(op.k, 0)}) with causal: true`);
      if (op.scale !== undefined) expectFinite(name, 'scale', op.scale);
      return [{ dtype: 'f32', shape: op.q.shape }];
    }
    case 'cosineSimilarity': {
      expectDType(name, 'queries', op.queries, F32);
      expectDType(name, 'targets', op.targets, F32);
      expectRank(name, 'queries', op.queries, [1, 2]);
      expectRank(name, 'targets', op.targets, [2]);
      if (lastDim(op.queries) !== dim(op.targets, 1)) {
        fail(name, 'targets.shape[1]', dim(op.targets, 1), `must equal the query dimension (${lastDim(op.queries)})`);
      }
      const q = op.queries.shape.length === 1 ? 1 : dim(op.queries, 0);
      return [{ dtype: 'f32', shape: [q, dim(op.targets, 0)] }];
    }
    case 'topK': {
      expectDType(name, 'x', op.x, F32);
      expectRank(name, 'x', op.x, [1, 2]);
      const n = lastDim(op.x);
      if (!Number.isInteger(op.k) || op.k < 1 || op.k > n) fail(name, 'k', op.k, `must be an integer in [1, ${n}] (row length)`);
      const rows = op.x.shape.length === 1 ? 1 : dim(op.x, 0);
      return [
        { dtype: 'f32', shape: [rows, op.k] },
        { dtype: 'i32', shape: [rows, op.k] },
      ];
    }
    case 'spreadActivation': {
      expectDType(name, 'rowPtr', op.rowPtr, ['u32']);
      expectDType(name, 'colIdx', op.colIdx, ['u32']);
      expectDType(name, 'weights', op.weights, F32);
      expectDType(name, 'initial', op.initial, F32);
      for (const [arg, t] of [['rowPtr', op.rowPtr], ['colIdx', op.colIdx], ['weights', op.weights], ['initial', op.initial]] as const) {
        expectRank(name, arg, t, [1]);
      }
      const nodes = dim(op.initial, 0);
      if (dim(op.rowPtr, 0) !== nodes + 1) fail(name, 'rowPtr.shape[0]', dim(op.rowPtr, 0), `must be initial.shape[0] + 1 (${nodes + 1})`);
      if (dim(op.weights, 0) !== dim(op.colIdx, 0)) fail(name, 'weights.shape[0]', dim(op.weights, 0), `must equal colIdx.shape[0] (${dim(op.colIdx, 0)})`);
      if (!(op.decay > 0 && op.decay <= 1)) fail(name, 'decay', op.decay, 'must be in (0, 1]');
      expectFinite(name, 'threshold', op.threshold);
      if (!Number.isInteger(op.iterations) || op.iterations < 1 || op.iterations > 1000) fail(name, 'iterations', op.iterations, 'must be an integer in [1, 1000]');
      return [{ dtype: 'f32', shape: [nodes] }];
    }
    case 'concat': {
      expectDType(name, 'a', op.a, UNQUANTIZED);
      if (op.b.dtype !== op.a.dtype) fail(name, 'b.dtype', op.b.dtype, `must equal a.dtype (${op.a.dtype})`);
      if (op.a.shape.length < 1) fail(name, 'a.shape', [...op.a.shape], 'must have rank >= 1');
      const rest = op.a.shape.slice(1);
      if (op.b.shape.length !== op.a.shape.length || !sameShape(op.b.shape.slice(1), rest)) {
        fail(name, 'b.shape', [...op.b.shape], `must be [rows, ${rest.join(', ')}] (a.shape [${op.a.shape.join(', ')}] past axis 0)`);
      }
      return [{ dtype: op.a.dtype, shape: [dim(op.a, 0) + dim(op.b, 0), ...rest] }];
    }
  }
}

function rows(t: TensorSpec): number {
  return t.shape.length <= 1 ? 1 : numel(t.shape) / Math.max(1, lastDim(t));
}

function bytesOf(t: TensorSpec): number {
  const n = numel(t.shape);
  if (isQuantized(t.dtype)) return (n / QUANT_BLOCK) * (t.dtype === 'q8_0' ? 34 : 18);
  return n * (t.dtype === 'f16' ? 2 : 4);
}

function outBytesOf(outputs: readonly TensorSpec[]): number {
  const out = outputs[0];
  return out === undefined ? 0 : bytesOf(out);
}

function outElemsOf(outputs: readonly TensorSpec[]): number {
  const out = outputs[0];
  return out === undefined ? 0 : numel(out.shape);
}

/** How much work an op is; pass inferOutputs' result when you have it (it also validates). */
export function opWork(op: Op<TensorSpec>, outputs: readonly TensorSpec[] = inferOutputs(op)): OpWork {
  switch (op.op) {
    case 'matmul': {
      // From the three dimensions (not numel of each shape): matmul is the engine's hottest small call.
      const m = op.a.shape[0] ?? 1;
      const k = op.a.shape[1] ?? 1;
      const n = op.b.shape[1] ?? 1;
      const elementBytes = op.a.dtype === 'f16' ? 2 : 4;
      return { flops: 2 * m * k * n, bytes: elementBytes * (m * k + k * n + m * n), batch: m };
    }
    case 'quantizedMatmul':
      return { flops: 2 * dim(op.x, 0) * dim(op.x, 1) * dim(op.w, 0), bytes: bytesOf(op.x) + bytesOf(op.w) + outBytesOf(outputs), batch: dim(op.x, 0) };
    case 'dequantize':
    case 'scale':
    case 'silu':
      return { flops: outElemsOf(outputs) * (op.op === 'silu' ? 4 : 1), bytes: bytesOf(op.x) + outBytesOf(outputs), batch: rows(op.x) };
    case 'add':
    case 'mul':
      return { flops: outElemsOf(outputs), bytes: bytesOf(op.a) + bytesOf(op.b) + outBytesOf(outputs), batch: rows(op.a) };
    case 'softmax':
    case 'rmsNorm':
      return { flops: outElemsOf(outputs) * 5, bytes: bytesOf(op.x) + outBytesOf(outputs), batch: rows(op.x) };
    case 'rope':
      return { flops: outElemsOf(outputs) * 6, bytes: bytesOf(op.x) + outBytesOf(outputs), batch: dim(op.x, 0) };
    case 'swiglu':
      return { flops: outElemsOf(outputs) * 5, bytes: bytesOf(op.gate) + bytesOf(op.up) + outBytesOf(outputs), batch: rows(op.gate) };
    case 'attention': {
      const [sq, h, d, sk] = [dim(op.q, 0), dim(op.q, 1), dim(op.q, 2), dim(op.k, 0)];
      return { flops: 4 * sq * sk * h * d, bytes: bytesOf(op.q) + bytesOf(op.k) + bytesOf(op.v) + outBytesOf(outputs), batch: sq };
    }
    case 'cosineSimilarity':
      return { flops: 2 * outElemsOf(outputs) * lastDim(op.targets), bytes: bytesOf(op.queries) + bytesOf(op.targets) + outBytesOf(outputs), batch: rows(op.queries) };
    case 'topK':
      return { flops: numel(op.x.shape) * Math.max(1, Math.log2(op.k + 1)), bytes: bytesOf(op.x) + 2 * outBytesOf(outputs), batch: rows(op.x) };
    case 'concat':
      // A copy: memory-bound, bytes in + bytes out.
      return { flops: 0, bytes: bytesOf(op.a) + bytesOf(op.b) + outBytesOf(outputs), batch: dim(op.a, 0) + dim(op.b, 0) };
    case 'spreadActivation': {
      const edges = dim(op.colIdx, 0);
      return { flops: 2 * edges * op.iterations, bytes: (bytesOf(op.colIdx) + bytesOf(op.weights) + bytesOf(op.initial) * 2) * op.iterations, batch: 1 };
    }
  }
}
