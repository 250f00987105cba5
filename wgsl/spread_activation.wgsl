// spread_activation: one hop of spreading activation over a CSR graph (source rows -> target columns), for each of
// `seeds` activation vectors of `nodes` each, back to back:
//   next[s][j] += decay * w(i, j) * current[s][i]  for every edge i -> j with current[s][i] >= threshold.
// The host first copies current into next, so next[j] = current[j] + decay * sum(...). One invocation per
// (seed, edge); its source row is found by binary search in row_ptr; float adds use a compare-exchange loop on the
// bits (WGSL has no float atomics), so the summation order, and the last bits, vary between runs.
//
// Bindings (group 0):
//   @binding(0) row_ptr  storage, read        array<u32>          CSR row pointers [nodes + 1]
//   @binding(1) col_idx  storage, read        array<u32>          target node of each edge [edges]
//   @binding(2) weights  storage, read        array<f32>          weight of each edge [edges]
//   @binding(3) current  storage, read        array<f32>          activation before the hop [seeds, nodes]
//   @binding(4) next     storage, read_write  array<atomic<u32>>  activation after the hop (f32 bits) [seeds, nodes]
//   @binding(5) params   uniform              Params              nodes, edges, decay, threshold, seeds
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(edges * seeds / WG) workgroups over x and y (linear id = x + y * num_workgroups.x; the host keeps
// edges * seeds below 2^32).

struct Params {
  nodes: u32,
  edges: u32,
  decay: f32,
  threshold: f32,
  seeds: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(1) var<storage, read> col_idx: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read> current: array<f32>;
@group(0) @binding(4) var<storage, read_write> next: array<atomic<u32>>;
@group(0) @binding(5) var<uniform> params: Params;

// The source node of edge e: the row i with row_ptr[i] <= e < row_ptr[i + 1], or params.nodes if none.
fn source_of(e: u32) -> u32 {
  var lo = 0u;
  var hi = params.nodes;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (row_ptr[mid + 1u] <= e) { lo = mid + 1u; } else { hi = mid; }
  }
  if (lo >= params.nodes || row_ptr[lo] > e) { return params.nodes; }
  return lo;
}

fn add_to_next(j: u32, amount: f32) {
  var old = atomicLoad(&next[j]);
  loop {
    let result = atomicCompareExchangeWeak(&next[j], old, bitcast<u32>(bitcast<f32>(old) + amount));
    if (result.exchanged) { break; }
    old = result.old_value;
  }
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let id = (wid.x + wid.y * nwg.x) * WG + lid;
  if (params.edges == 0u || id >= params.edges * params.seeds) { return; }
  let seed = id / params.edges;
  let e = id - seed * params.edges;
  let i = source_of(e);
  if (i >= params.nodes) { return; }
  let base = seed * params.nodes;
  let a = current[base + i];
  if (!(a >= params.threshold)) { return; }
  let j = col_idx[e];
  if (j >= params.nodes) { return; }
  add_to_next(base + j, params.decay * weights[e] * a);
}
