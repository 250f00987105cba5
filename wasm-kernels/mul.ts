// mul on f32 (the f16 variant converts around it): out[i] = a[i] * b[i % bn].
import { binary } from './shared/binary';

/** out[i] = a[i] * b[i % bn], broadcast as add_f32. */
export function mul_f32(a: usize, b: usize, out: usize, n: i32, bn: i32): void {
  binary(a, b, out, n, bn, true);
}
