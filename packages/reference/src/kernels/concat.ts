// concat along axis 0: the output is a's bytes then b's (an exact copy; no arithmetic, so float64 changes nothing).
import type { ReferenceKernel } from '../kernel-support.ts';

/** a's bytes followed by b's, in a fresh array. */
export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** The reference's concat. */
export const concatKernel: ReferenceKernel<'concat'> = {
  run: (op) => [concat(op.a.data, op.b.data)],
};
