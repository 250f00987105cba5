// top_k: the k largest values of each row of x [rows, n], descending, with their column indices.
// Order: larger value first; equal values (+0 and -0 are equal) go to the lower index; NaN ranks below -inf.
// One workgroup per row runs k selection rounds; round r picks the best element ranked after round r-1's pick
// (the order is total, so no element is picked twice). Cost O(k * n) per row.
//
// Bindings (group 0):
//   @binding(0) x        storage, read        array<f32>  input [rows, n]
//   @binding(1) values   storage, read_write  array<f32>  [rows, k]
//   @binding(2) indices  storage, read_write  array<i32>  [rows, k]
//   @binding(3) params   uniform              Params      rows, n, k
// Overrides: WG (invocations per workgroup, a power of two: tree reduction).
// Dispatch: one workgroup per row over x and y (row = x + y * num_workgroups.x).

struct Params {
  rows: u32,
  n: u32,
  k: u32,
}

override WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> indices: array<i32>;
@group(0) @binding(3) var<uniform> params: Params;

const NONE: u32 = 0xffffffffu;

var<workgroup> best_key: array<u32, WG>;
var<workgroup> best_index: array<u32, WG>;
var<workgroup> picked_key: u32;
var<workgroup> picked_index: u32;

// Maps a float to a u32 that sorts the same way: NaN lowest (0), then -inf .. +inf; -0 and +0 equal.
fn sort_key(v: f32) -> u32 {
  var bits = bitcast<u32>(v);
  let mag = bits & 0x7fffffffu;
  if (mag > 0x7f800000u) { return 0u; }
  if (mag == 0u) { bits = 0u; }
  if ((bits & 0x80000000u) != 0u) { return ~bits; }
  return bits | 0x80000000u;
}

// Whether (ka, ia) ranks before (kb, ib); NONE as ib ranks last.
fn ranks_before(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
  if (ib == NONE) { return true; }
  return ka > kb || (ka == kb && ia < ib);
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let row = wid.x + wid.y * nwg.x;
  if (row >= params.rows) { return; }
  let base = row * params.n;
  if (lid == 0u) {
    picked_key = 0u;
    picked_index = NONE;
  }

  for (var r = 0u; r < params.k; r++) {
    workgroupBarrier();
    let pk = picked_key;
    let pi = picked_index;
    var bk = 0u;
    var bi = NONE;
    for (var c = lid; c < params.n; c += WG) {
      let key = sort_key(x[base + c]);
      let after_pick = pi == NONE || ranks_before(pk, pi, key, c);
      if (after_pick && ranks_before(key, c, bk, bi)) {
        bk = key;
        bi = c;
      }
    }
    best_key[lid] = bk;
    best_index[lid] = bi;
    for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
      workgroupBarrier();
      if (lid < stride) {
        let ok = best_key[lid + stride];
        let oi = best_index[lid + stride];
        if (oi != NONE && ranks_before(ok, oi, best_key[lid], best_index[lid])) {
          best_key[lid] = ok;
          best_index[lid] = oi;
        }
      }
    }
    if (lid == 0u) {
      let winner = best_index[0];
      let o = row * params.k + r;
      values[o] = x[base + winner];
      indices[o] = i32(winner);
      picked_key = best_key[0];
      picked_index = winner;
    }
  }
}
