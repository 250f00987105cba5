// scale: out[i] = x[i] * factor.
// f16 tensors reach kernels widened to f32 (f16_unpack); ROUND_F16 rounds each result to binary16.
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<f32>  input
//   @binding(1) out     storage, read_write  array<f32>  result, x's shape
//   @binding(2) params  uniform              Params      n = elements, factor = multiplier
// Overrides: WG (invocations per workgroup), ROUND_F16 (round results to binary16).
// Dispatch: ceil(n / WG) workgroups, laid out over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
  factor: f32,
}

override WG: u32 = 256u;
override ROUND_F16: bool = false;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

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

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  var v = x[i] * params.factor;
  if (ROUND_F16) { v = round_f16(v); }
  out[i] = v;
}
