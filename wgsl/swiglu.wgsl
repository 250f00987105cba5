// swiglu: out[i] = silu(gate[i]) * up[i], the Llama MLP's gating.
//
// Bindings (group 0):
//   @binding(0) gate    storage, read        array<f32>  gate projection
//   @binding(1) up      storage, read        array<f32>  up projection, gate's shape
//   @binding(2) out     storage, read_write  array<f32>  result, gate's shape
//   @binding(3) params  uniform              Params      n = elements
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(n / WG) workgroups, laid out over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> gate: array<f32>;
@group(0) @binding(1) var<storage, read> up: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  let g = gate[i];
  out[i] = g / (1.0 + exp(-g)) * up[i];
}
