// f32 -> f16 for the f16 variants of matmul / add / mul / scale, which compute in f32 and round once at the end.

/** Rounds `count` f32 at src to binary16 at dst (nearest even; overflow to inf, NaN stays NaN). */
export function f32_to_f16(src: usize, dst: usize, count: i32): void {
  for (let i = 0; i < count; i++) store<u16>(dst + (<usize>i << 1), floatToHalf(load<f32>(src + (<usize>i << 2))));
}

/** One f32 as binary16 bits, the same rounding as core's floatToHalf (the other direction is dequantize_f16). */
@inline function floatToHalf(value: f32): u16 {
  const x = reinterpret<u32>(value);
  const sign = (x >> 16) & 0x8000;
  const exp = <i32>((x >> 23) & 0xff);
  let mant = x & 0x7fffff;
  if (exp == 0xff) return <u16>(sign | 0x7c00 | (mant != 0 ? 0x200 : 0));
  let e = exp - 127 + 15;
  if (e >= 31) return <u16>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return <u16>sign;
    mant |= 0x800000;
    const shift = <u32>(14 - e);
    const half = <u32>1 << (shift - 1);
    const rest = mant & ((<u32>1 << shift) - 1);
    let m = mant >> shift;
    if (rest > half || (rest == half && (m & 1) == 1)) m += 1;
    return <u16>(sign | m);
  }
  let m = mant >> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (m & 1) == 1)) {
    m += 1;
    if (m == 0x400) {
      m = 0;
      e += 1;
      if (e >= 31) return <u16>(sign | 0x7c00);
    }
  }
  return <u16>(sign | (<u32>e << 10) | m);
}
