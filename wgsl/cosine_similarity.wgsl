// cosine_similarity: out[qi, t] = (q . t) / (|q| |t|) for queries [nq, dim] x targets [nt, dim] -> [nq, nt];
// a zero vector on either side scores 0. One invocation per output.
//
// Bindings (group 0):
//   @binding(0) queries  storage, read        array<f32>  [nq, dim]
//   @binding(1) targets  storage, read        array<f32>  [nt, dim]
//   @binding(2) out      storage, read_write  array<f32>  [nq, nt]
//   @binding(3) params   uniform              Params      nq, nt, dim
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(nq * nt / WG) workgroups over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  nq: u32,
  nt: u32,
  dim: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> queries: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let o = (wid.x + wid.y * nwg.x) * WG + lid;
  if (o >= params.nq * params.nt) { return; }
  let qi = o / params.nt;
  let ti = o % params.nt;
  let q_base = qi * params.dim;
  let t_base = ti * params.dim;
  var dot = 0.0;
  var qq = 0.0;
  var tt = 0.0;
  for (var d = 0u; d < params.dim; d++) {
    let a = queries[q_base + d];
    let b = targets[t_base + d];
    dot += a * b;
    qq += a * a;
    tt += b * b;
  }
  var score = 0.0;
  if (qq > 0.0 && tt > 0.0) { score = dot / (sqrt(qq) * sqrt(tt)); }
  out[o] = score;
}
