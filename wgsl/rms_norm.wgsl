// rms_norm: out = x / sqrt(mean(x^2) + eps) * weight over the last dimension, one workgroup per row.
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<f32>  input, rows * n values
//   @binding(1) weight  storage, read        array<f32>  per-channel gain [n]; ignored when has_weight = 0
//   @binding(2) out     storage, read_write  array<f32>  result, x's shape
//   @binding(3) params  uniform              Params      rows, n, eps, has_weight (0/1)
// Overrides: WG (invocations per workgroup, a power of two: tree reduction).
// Dispatch: one workgroup per row, laid out over x and y (row = x + y * num_workgroups.x).

struct Params {
  rows: u32,
  n: u32,
  eps: f32,
  has_weight: u32,
}

override WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> scratch: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let row = wid.x + wid.y * nwg.x;
  if (row >= params.rows) { return; }
  let base = row * params.n;

  var ss = 0.0;
  for (var c = lid; c < params.n; c += WG) {
    let v = x[base + c];
    ss += v * v;
  }
  scratch[lid] = ss;
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (lid < stride) { scratch[lid] += scratch[lid + stride]; }
  }
  let total = workgroupUniformLoad(&scratch[0]);
  let inv = 1.0 / sqrt(total / f32(params.n) + params.eps);

  for (var c = lid; c < params.n; c += WG) {
    var g = 1.0;
    if (params.has_weight != 0u) { g = weight[c]; }
    out[base + c] = x[base + c] * inv * g;
  }
}
