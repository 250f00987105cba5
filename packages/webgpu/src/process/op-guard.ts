// Checks that a value received over IPC is an op of core's union: a known op id, and each field of that op
// present with the right kind (tensor, optional tensor, number, optional number, boolean, RoPE mode).
import { OP_KINDS, type Op, type OpKind } from '@tandem/core';
import { isRecord } from './wire-guards.ts';

/** What one field of an op holds. */
type FieldKind = 'tensor' | 'tensor?' | 'number' | 'number?' | 'boolean' | 'ropeMode';

/** Every field of every op, by op id (kept exhaustive by the mapped type). */
const OP_FIELDS: { readonly [K in OpKind]: Readonly<Record<string, FieldKind>> } = {
  matmul: { a: 'tensor', b: 'tensor' },
  quantizedMatmul: { x: 'tensor', w: 'tensor' },
  dequantize: { x: 'tensor' },
  add: { a: 'tensor', b: 'tensor' },
  mul: { a: 'tensor', b: 'tensor' },
  scale: { x: 'tensor', factor: 'number' },
  softmax: { x: 'tensor', causal: 'boolean' },
  rmsNorm: { x: 'tensor', weight: 'tensor?', eps: 'number' },
  rope: { x: 'tensor', positionOffset: 'number', base: 'number', mode: 'ropeMode' },
  silu: { x: 'tensor' },
  swiglu: { gate: 'tensor', up: 'tensor' },
  attention: { q: 'tensor', k: 'tensor', v: 'tensor', causal: 'boolean', scale: 'number?' },
  cosineSimilarity: { queries: 'tensor', targets: 'tensor' },
  topK: { x: 'tensor', k: 'number' },
  spreadActivation: { rowPtr: 'tensor', colIdx: 'tensor', weights: 'tensor', initial: 'tensor', decay: 'number', threshold: 'number', iterations: 'number' },
  concat: { a: 'tensor', b: 'tensor' },
};

function fieldFits(value: unknown, kind: FieldKind, isTensor: (v: unknown) => boolean): boolean {
  switch (kind) {
    case 'tensor':
      return isTensor(value);
    case 'tensor?':
      return value === undefined || isTensor(value);
    case 'number':
      return typeof value === 'number';
    case 'number?':
      return value === undefined || typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'ropeMode':
      return value === 'interleaved' || value === 'neox';
  }
}

/** Whether `value` is an op whose tensors all pass `isTensor`. */
export function isOpOver<T>(value: unknown, isTensor: (v: unknown) => v is T): value is Op<T> {
  if (!isRecord(value)) return false;
  const kind = OP_KINDS.find((k) => k === value['op']);
  if (kind === undefined) return false;
  return Object.entries(OP_FIELDS[kind]).every(([name, field]) => fieldFits(value[name], field, isTensor));
}
