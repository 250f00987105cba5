// silu: out[i] = x[i] * sigmoid(x[i]) = x[i] / (1 + exp(-x[i])).
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<f32>  input
//   @binding(1) out     storage, read_write  array<f32>  result, x's shape
//   @binding(2) params  uniform              Params      n = elements
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(n / WG) workgroups, laid out over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  let v = x[i];
  out[i] = v / (1.0 + exp(-v));
}
