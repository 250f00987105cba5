// add: out[i] = a[i] + b[i % b_len]; b is a's shape or a suffix of it (broadcast over leading dimensions).
// f16 tensors reach kernels widened to f32 (f16_unpack); ROUND_F16 rounds each result to binary16 so chained f16 ops
// see exactly what a binary16 device would.
//
// Bindings (group 0):
//   @binding(0) a       storage, read        array<f32>  left operand
//   @binding(1) b       storage, read        array<f32>  right operand
//   @binding(2) out     storage, read_write  array<f32>  result, a's shape
//   @binding(3) params  uniform              Params      n = elements of a, b_len = elements of b
// Overrides: WG (invocations per workgroup), ROUND_F16 (round results to binary16).
// Dispatch: ceil(n / WG) workgroups, laid out over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
  b_len: u32,
}

override WG: u32 = 256u;
override ROUND_F16: bool = false;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

//! include shared/f16.wgsl

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  var v = a[i] + b[i % params.b_len];
  if (ROUND_F16) { v = round_f16(v); }
  out[i] = v;
}
