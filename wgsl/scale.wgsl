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

//! include shared/f16.wgsl

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
