// f16_unpack: binary16 values stored two per 32-bit word (element i in bits 16 * (i % 2) and up of word i / 2) ->
// f32, exactly: the kernels read f16 tensors widened to f32 (every binary16 value, subnormals, infinities and NaN
// included, is an f32 value). Integer operations only: no shader-f16 needed, and no rounding mode involved.
//
// Bindings (group 0):
//   @binding(0) src     storage, read        array<u32>  ceil(n / 2) words of packed binary16
//   @binding(1) dst     storage, read_write  array<f32>  n values
//   @binding(2) params  uniform              Params      n = elements
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(n / WG) workgroups over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

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

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  dst[i] = half_to_float((src[i / 2u] >> (16u * (i % 2u))) & 0xffffu);
}
