// scale: x * factor, each product in float64 rounded once to f32 (f16: decoded, scaled, rounded to f16).
import { decodeF16, encodeF16 } from '@tandem/core';
import { bytesOf, readU16 } from '../bytes.ts';
import { f32, mapValues, widenedBytes, type ReferenceKernel } from '../kernel-support.ts';

/** x * factor. */
export function scale(x: Float32Array, factor: number): Float32Array {
  return mapValues(x, (v) => v * factor);
}

/** scale on binary16 bits: decoded, scaled in float64, rounded to f16. */
export function scaleF16(x: Uint16Array, factor: number): Uint16Array {
  return encodeF16(scale(decodeF16(x), factor));
}

/** The reference's scale. */
export const scaleKernel: ReferenceKernel<'scale'> = {
  run: (op) => [
    op.x.dtype === 'f16'
      ? bytesOf(scaleF16(readU16(op.x.data), op.factor))
      : bytesOf(scale(f32(op.x, 'scale.x'), op.factor)),
  ],
  scratchBytes: (op, outputs) => (op.x.dtype === 'f16' ? widenedBytes([op.x], outputs) : 0),
};
