// f16 helpers, included by the kernels that round to, pack or unpack binary16 (`//! include shared/f16.wgsl`).
// Integer operations only: no shader-f16 needed, and no rounding mode involved.

// Rounds to the nearest binary16 value (ties to even); overflow goes to +-inf; inf and NaN pass through.
fn round_f16(v: f32) -> f32 {
  let bits = bitcast<u32>(v);
  let mag = bits & 0x7fffffffu;
  if (mag >= 0x7f800000u) { return v; }
  if (mag < 0x38800000u) { return round(v * 16777216.0) * (1.0 / 16777216.0); }
  let rounded = (mag + 0xfffu + ((mag >> 13u) & 1u)) & 0xffffe000u;
  if (rounded > 0x477fe000u) { return bitcast<f32>((bits & 0x80000000u) | 0x7f800000u); }
  return bitcast<f32>((bits & 0x80000000u) | rounded);
}

/** The binary16 bits nearest to v (ties to even). */
fn float_to_half(v: f32) -> u32 {
  let bits = bitcast<u32>(v);
  let sign = (bits >> 16u) & 0x8000u;
  let mag = bits & 0x7fffffffu;
  if (mag > 0x7f800000u) { return sign | 0x7e00u; }
  if (mag == 0x7f800000u) { return sign | 0x7c00u; }
  if (mag < 0x38800000u) {
    // Below 2^-14: a subnormal (or zero) binary16, mantissa = |v| * 2^24 rounded; 1024 encodes 2^-14 itself.
    return sign | u32(round(bitcast<f32>(mag) * 16777216.0));
  }
  let rounded = (mag + 0xfffu + ((mag >> 13u) & 1u)) & 0xffffe000u;
  if (rounded > 0x477fe000u) { return sign | 0x7c00u; }
  return sign | (((rounded >> 23u) - 112u) << 10u) | ((rounded >> 13u) & 0x3ffu);
}

/** The f32 value of binary16 bits h (sign, 5-bit exponent, 10-bit mantissa). */
fn half_to_float(h: u32) -> f32 {
  let sign = (h & 0x8000u) << 16u;
  let exponent = (h >> 10u) & 0x1fu;
  let mantissa = h & 0x3ffu;
  if (exponent == 0u) {
    // Zero or subnormal: mantissa * 2^-24, a normal f32 (or zero), exact.
    return bitcast<f32>(bitcast<u32>(f32(mantissa) * (1.0 / 16777216.0)) | sign);
  }
  if (exponent == 31u) { return bitcast<f32>(sign | 0x7f800000u | (mantissa << 13u)); }
  return bitcast<f32>(sign | ((exponent + 112u) << 23u) | (mantissa << 13u));
}
