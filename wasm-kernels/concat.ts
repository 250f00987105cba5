// concat along axis 0: out = a's bytes then b's, copied inside linear memory (memory.copy; no arithmetic).

/** Copies aBytes from a, then bBytes from b, to out. out never overlaps a or b (a fresh output). */
export function concat_bytes(a: usize, aBytes: usize, b: usize, bBytes: usize, out: usize): void {
  memory.copy(out, a, aBytes);
  memory.copy(out + aBytes, b, bBytes);
}
