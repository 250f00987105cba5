// add on f32 (the f16 variant converts around it): out[i] = a[i] + b[i % bn].
import { binary } from './shared/binary';

/** out[i] = a[i] + b[i % bn]: b is a's shape or a suffix of it (broadcast over leading dimensions); n = numel(a). */
export function add_f32(a: usize, b: usize, out: usize, n: i32, bn: i32): void {
  binary(a, b, out, n, bn, false);
}
