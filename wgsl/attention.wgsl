// attention: multi-head scaled dot-product attention with grouped KV heads, one workgroup per (query, head).
//   out[i, h, :] = sum_j softmax_j(scale * q[i, h, :] . k[j, g, :]) * v[j, g, :],  g = h / (heads / kv_heads)
// causal = 1: query i (absolute position sk - sq + i) sees keys j <= sk - sq + i. Keys are processed in
// tiles of WG with an online (running max) softmax, so sk is unbounded. No visible key gives zeros.
//
// Bindings (group 0):
//   @binding(0) q       storage, read        array<f32>  queries [sq, heads, head_dim]
//   @binding(1) k       storage, read        array<f32>  keys [sk, kv_heads, head_dim]
//   @binding(2) v       storage, read        array<f32>  values [sk, kv_heads, head_dim]
//   @binding(3) out     storage, read_write  array<f32>  result [sq, heads, head_dim]
//   @binding(4) params  uniform              Params      sq, sk, heads, kv_heads, head_dim, causal (0/1), scale
// Overrides: WG (invocations per workgroup = keys per tile), MAX_D (>= head_dim: workgroup arrays' length).
// Dispatch: sq * heads workgroups over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  sq: u32,
  sk: u32,
  heads: u32,
  kv_heads: u32,
  head_dim: u32,
  causal: u32,
  scale: f32,
}

override WG: u32 = 64u;
override MAX_D: u32 = 128u;

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;

var<workgroup> q_scaled: array<f32, MAX_D>;
var<workgroup> acc: array<f32, MAX_D>;
var<workgroup> scores: array<f32, WG>;
var<workgroup> probs: array<f32, WG>;

const NEG_INF_BITS: u32 = 0xff800000u;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let g = wid.x + wid.y * nwg.x;
  if (g >= params.sq * params.heads) { return; }
  let i = g / params.heads;
  let h = g % params.heads;
  let kvh = h / (params.heads / params.kv_heads);
  let d_len = params.head_dim;
  // -inf must be a runtime value: as a const-expression WGSL rejects it.
  let neg_inf = bitcast<f32>(NEG_INF_BITS | (lid & 0u));
  let q_base = (i * params.heads + h) * d_len;

  for (var d = lid; d < d_len; d += WG) {
    q_scaled[d] = q[q_base + d] * params.scale;
    acc[d] = 0.0;
  }
  workgroupBarrier();

  var key_end = params.sk;
  if (params.causal != 0u) { key_end = min(params.sk, params.sk - params.sq + i + 1u); }

  var m = neg_inf;
  var l = 0.0;
  for (var start = 0u; start < key_end; start += WG) {
    let count = min(WG, key_end - start);
    let j = start + lid;
    var s = neg_inf;
    if (lid < count) {
      let k_base = (j * params.kv_heads + kvh) * d_len;
      var dot = 0.0;
      for (var d = 0u; d < d_len; d++) { dot += q_scaled[d] * k[k_base + d]; }
      s = dot;
    }
    scores[lid] = s;
    workgroupBarrier();

    var tile_max = neg_inf;
    for (var t = 0u; t < count; t++) { tile_max = max(tile_max, scores[t]); }
    let m_new = max(m, tile_max);
    var p = 0.0;
    if (lid < count) { p = exp(s - m_new); }
    probs[lid] = p;
    let correction = select(exp(m - m_new), 0.0, start == 0u);
    workgroupBarrier();

    var p_sum = 0.0;
    for (var t = 0u; t < count; t++) { p_sum += probs[t]; }
    l = l * correction + p_sum;
    for (var d = lid; d < d_len; d += WG) {
      var a = acc[d] * correction;
      for (var t = 0u; t < count; t++) {
        a += probs[t] * v[((start + t) * params.kv_heads + kvh) * d_len + d];
      }
      acc[d] = a;
    }
    m = m_new;
    workgroupBarrier();
  }

  for (var d = lid; d < d_len; d += WG) {
    out[q_base + d] = select(acc[d] / l, 0.0, l == 0.0);
  }
}
