// softmax: row-wise softmax over the last dimension of x [..., mat_rows, cols], one workgroup per row.
// With causal = 1, row r of each [mat_rows, cols] matrix sees columns c <= r + (cols - mat_rows); the rest
// count as -inf and come out 0. A row with no visible column, or whose visible values are all -inf, is all 0.
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<f32>  input, rows * cols values
//   @binding(1) out     storage, read_write  array<f32>  result, x's shape
//   @binding(2) params  uniform              Params      rows (all leading dims), cols, mat_rows, causal (0/1)
// Overrides: WG (invocations per workgroup, a power of two: tree reduction).
// Dispatch: one workgroup per row, laid out over x and y (row = x + y * num_workgroups.x).

struct Params {
  rows: u32,
  cols: u32,
  mat_rows: u32,
  causal: u32,
}

override WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

var<workgroup> scratch: array<f32, WG>;

const NEG_INF_BITS: u32 = 0xff800000u;

// Number of leading columns row `row` may see.
fn visible_columns(row: u32) -> u32 {
  if (params.causal == 0u) { return params.cols; }
  let r = i32(row % params.mat_rows);
  let visible = r + i32(params.cols) - i32(params.mat_rows) + 1;
  return u32(clamp(visible, 0, i32(params.cols)));
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let row = wid.x + wid.y * nwg.x;
  if (row >= params.rows) { return; }
  let base = row * params.cols;
  let limit = visible_columns(row);
  // -inf must be a runtime value: as a const-expression WGSL rejects it.
  let neg_inf = bitcast<f32>(NEG_INF_BITS | (lid & 0u));

  var m = neg_inf;
  for (var c = lid; c < limit; c += WG) { m = max(m, x[base + c]); }
  scratch[lid] = m;
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (lid < stride) { scratch[lid] = max(scratch[lid], scratch[lid + stride]); }
  }
  let row_max = workgroupUniformLoad(&scratch[0]);
  let empty = bitcast<u32>(row_max) == NEG_INF_BITS;
  workgroupBarrier(); // every invocation has read scratch[0] before it is overwritten

  var s = 0.0;
  if (!empty) {
    for (var c = lid; c < limit; c += WG) { s += exp(x[base + c] - row_max); }
  }
  scratch[lid] = s;
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (lid < stride) { scratch[lid] += scratch[lid + stride]; }
  }
  let total = workgroupUniformLoad(&scratch[0]);

  for (var c = lid; c < params.cols; c += WG) {
    var v = 0.0;
    if (!empty && c < limit) { v = exp(x[base + c] - row_max) / total; }
    out[base + c] = v;
  }
}
