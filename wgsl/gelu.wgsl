// gelu: out[i] = gelu(x[i]), tanh approximation, as x / (1 + exp(-2u)) with u = sqrt(2/pi) (x + 0.044715 x^3) (the
// same value: 0.5 (1 + tanh(u)) = sigmoid(2u), without 1 + tanh(u) cancelling to 0 in the negative tail).
// f16 tensors reach kernels widened to f32 (f16_unpack); ROUND_F16 rounds each result to binary16.
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<f32>  input
//   @binding(1) out     storage, read_write  array<f32>  result, x's shape
//   @binding(2) params  uniform              Params      n = elements
// Overrides: WG (invocations per workgroup), ROUND_F16 (round results to binary16).
// Dispatch: ceil(n / WG) workgroups, laid out over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
}

override WG: u32 = 256u;
override ROUND_F16: bool = false;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

//! include shared/f16.wgsl

/** sqrt(2 / pi). */
const SQRT_2_OVER_PI: f32 = 0.7978845608;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  let v = x[i];
  let u = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v);
  var g = v / (1.0 + exp(-2.0 * u));
  if (ROUND_F16) { g = round_f16(g); }
  out[i] = g;
}
