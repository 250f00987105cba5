// cosine_similarity_vec4: cosine_similarity.wgsl for dim a multiple of 4, every row read as vec4f: a step of LANES
// invocations reads LANES * 16 consecutive bytes of a row, with a quarter of the load instructions of the scalar
// kernel. Each invocation issues four steps' loads before adding any, which keeps reads faster on a Dawn device in
// its slow-read mode (after a few GB of host uploads) and costs nothing otherwise (figures: docs/decisions.md,
// issue 29, from apps/bench/probes/webgpu-cosine-probe.mjs and webgpu-upload-probe.mjs). Same rules for special vectors
// (CosineSimilarityOp in packages/core/src/ops.ts): a NaN in either vector -> NaN; else a zero vector (all +-0, or
// subnormals this GPU flushes) -> 0; else an infinity in either -> NaN; else the cosine, whatever the lengths.
// Fast path: f32 dot and sums of squares, partial sums added in a workgroup-memory tree. When either sum of squares
// is outside [2^-80, 2^126], slow_score classifies both rows by the bits of their largest |entry| and recomputes with
// each row scaled by a power of two near 1 / max |entry| (exact), as the scalar kernel does.
//
// Bindings (group 0):
//   @binding(0) queries  storage, read        array<vec4f>  [nq, dim / 4]
//   @binding(1) targets  storage, read        array<vec4f>  [nt, dim / 4]
//   @binding(2) out      storage, read_write  array<f32>    [nq, nt]
//   @binding(3) params   uniform              Params        nq, nt, dim (a multiple of 4), out_nt, t0
// Overrides: WG (invocations per workgroup, <= MAX_WG), LANES (invocations per output: a power of two dividing WG).
// Dispatch: ceil(nq * nt / (WG / LANES)) workgroups over x and y (linear id = x + y * num_workgroups.x).
// Targets past one storage binding run as several dispatches, each binding nt rows of them: its scores go to
// columns t0 .. t0 + nt - 1 of out, whose rows hold out_nt scores (out_nt = nt, t0 = 0 for a single dispatch).

struct Params {
  nq: u32,
  nt: u32,
  dim: u32,
  out_nt: u32,
  t0: u32,
}

override WG: u32 = 256u;
override LANES: u32 = 32u;

/** Size of the workgroup's reduction array: the largest WG. */
const MAX_WG: u32 = 256u;

/** Bits of 2^-80 and 2^126: the squared norms the fast path takes. */
const FAST_MIN_BITS: u32 = 0x17800000u;
const FAST_MAX_BITS: u32 = 0x7e800000u;
/** Bits of +Inf; |x| bits above it are NaN. */
const INF_BITS: u32 = 0x7f800000u;

@group(0) @binding(0) var<storage, read> queries: array<vec4f>;
@group(0) @binding(1) var<storage, read> targets: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

/** Whether a sum of squares lies in [2^-80, 2^126] (false for NaN and Inf). */
fn in_fast_range(squares: f32) -> bool {
  let bits = bitcast<u32>(squares);
  return bits >= FAST_MIN_BITS && bits <= FAST_MAX_BITS;
}

/** A power of two that brings the largest |entry| (bits of a finite non-zero value) into [1, 4). */
fn scale_for(max_bits: u32) -> f32 {
  let e = clamp(i32(max_bits >> 23u) - 127, -126, 126);
  return bitcast<f32>(u32(127 - e) << 23u);
}

/** The largest of a vector's four bit patterns. */
fn max4(v: vec4u) -> u32 {
  return max(max(v.x, v.y), max(v.z, v.w));
}

/** The score of one pair by the op's rules, rows scaled near unit length (bases and count in vec4s). */
fn slow_score(q_base: u32, t_base: u32, dim4: u32) -> f32 {
  var q_max = vec4u(0u);
  var t_max = vec4u(0u);
  for (var d = 0u; d < dim4; d++) {
    q_max = max(q_max, bitcast<vec4u>(queries[q_base + d]) & vec4u(0x7fffffffu));
    t_max = max(t_max, bitcast<vec4u>(targets[t_base + d]) & vec4u(0x7fffffffu));
  }
  let q_bits = max4(q_max);
  let t_bits = max4(t_max);
  // A quiet NaN made from the row's bits: a NaN constant would be a shader-creation error in WGSL.
  let nan = bitcast<f32>(max(q_bits, t_bits) | 0x7fc00000u);
  if (q_bits > INF_BITS || t_bits > INF_BITS) { return nan; }
  if (q_bits == 0u || t_bits == 0u) { return 0.0; }
  if (q_bits == INF_BITS || t_bits == INF_BITS) { return nan; }
  let qs = scale_for(q_bits);
  let ts = scale_for(t_bits);
  var qt = 0.0;
  var qq = 0.0;
  var tt = 0.0;
  for (var d = 0u; d < dim4; d++) {
    let a = queries[q_base + d] * qs;
    let b = targets[t_base + d] * ts;
    qt += dot(a, b);
    qq += dot(a, a);
    tt += dot(b, b);
  }
  // Subnormal rows flushed by this GPU are zero vectors here.
  if (qq == 0.0 || tt == 0.0) { return 0.0; }
  return qt / (sqrt(qq) * sqrt(tt));
}

/** Each lane's partial (dot, q.q, t.t), added in a tree per output. */
var<workgroup> partial: array<vec3f, MAX_WG>;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let o = (wid.x + wid.y * nwg.x) * (WG / LANES) + lid / LANES;
  let lane = lid % LANES;
  let dim4 = params.dim / 4u;
  // No early return: every invocation must reach the barriers below.
  let valid = o < params.nq * params.nt;
  var q_base = 0u;
  var t_base = 0u;
  var sums = vec3f(0.0);
  if (valid) {
    q_base = (o / params.nt) * dim4;
    t_base = (o % params.nt) * dim4;
    var d = lane;
    // Four rows' loads issued before any is used: more bytes in flight per invocation.
    for (; d + 3u * LANES < dim4; d += 4u * LANES) {
      let b0 = targets[t_base + d];
      let b1 = targets[t_base + d + LANES];
      let b2 = targets[t_base + d + 2u * LANES];
      let b3 = targets[t_base + d + 3u * LANES];
      let a0 = queries[q_base + d];
      let a1 = queries[q_base + d + LANES];
      let a2 = queries[q_base + d + 2u * LANES];
      let a3 = queries[q_base + d + 3u * LANES];
      sums += vec3f(dot(a0, b0) + dot(a1, b1) + dot(a2, b2) + dot(a3, b3), dot(a0, a0) + dot(a1, a1) + dot(a2, a2) + dot(a3, a3), dot(b0, b0) + dot(b1, b1) + dot(b2, b2) + dot(b3, b3));
    }
    for (; d < dim4; d += LANES) {
      let a = queries[q_base + d];
      let b = targets[t_base + d];
      sums += vec3f(dot(a, b), dot(a, a), dot(b, b));
    }
  }
  partial[lid] = sums;
  for (var half = LANES / 2u; half > 0u; half /= 2u) {
    workgroupBarrier();
    if (lane < half) { partial[lid] += partial[lid + half]; }
  }
  if (!valid || lane != 0u) { return; }
  let total = partial[lid];
  let at = (o / params.nt) * params.out_nt + params.t0 + o % params.nt;
  if (in_fast_range(total.y) && in_fast_range(total.z)) {
    out[at] = total.x / (sqrt(total.y) * sqrt(total.z));
  } else {
    out[at] = slow_score(q_base, t_base, dim4);
  }
}
