// cosine_similarity: out[qi, t] = (q . t) / (|q| |t|) for queries [nq, dim] x targets [nt, dim] -> [nq, nt], with
// the op's rules for special vectors (CosineSimilarityOp in packages/core/src/ops.ts): a NaN in either vector -> NaN;
// else a zero vector (all +-0, or subnormals this GPU flushes) -> 0; else an infinity in either -> NaN; else the
// cosine, whatever the vectors' lengths.
// LANES consecutive invocations share one output: lane l reads entries l, l + LANES, ... of both rows, so each
// step of a subgroup reads LANES consecutive floats of a row (coalesced: one invocation per output read rows
// dim * 4 bytes apart and reached a small fraction of the memory bandwidth), then the lanes' partial sums are
// added in a tree in workgroup memory and lane 0 writes the score.
// Fast path: f32 dot and sums of squares. When either sum of squares is outside [2^-80, 2^126] (zero, tiny, huge,
// Inf or NaN: rare), slow_score classifies both rows by the bits of their largest |entry| and recomputes with each
// row scaled by a power of two near 1 / max |entry| (exact). All tests on special values are integer tests on bit
// patterns, so no compiler assumption about NaN can change them.
//
// Bindings (group 0):
//   @binding(0) queries  storage, read        array<f32>  [nq, dim]
//   @binding(1) targets  storage, read        array<f32>  [nt, dim]
//   @binding(2) out      storage, read_write  array<f32>  [nq, nt]
//   @binding(3) params   uniform              Params      nq, nt, dim, out_nt, t0
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

@group(0) @binding(0) var<storage, read> queries: array<f32>;
@group(0) @binding(1) var<storage, read> targets: array<f32>;
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

/** The score of one pair by the op's rules, rows scaled near unit length. */
fn slow_score(q_base: u32, t_base: u32) -> f32 {
  var q_max = 0u;
  var t_max = 0u;
  for (var d = 0u; d < params.dim; d++) {
    q_max = max(q_max, bitcast<u32>(queries[q_base + d]) & 0x7fffffffu);
    t_max = max(t_max, bitcast<u32>(targets[t_base + d]) & 0x7fffffffu);
  }
  // A quiet NaN made from the row's bits: a NaN constant would be a shader-creation error in WGSL.
  let nan = bitcast<f32>(max(q_max, t_max) | 0x7fc00000u);
  if (q_max > INF_BITS || t_max > INF_BITS) { return nan; }
  if (q_max == 0u || t_max == 0u) { return 0.0; }
  if (q_max == INF_BITS || t_max == INF_BITS) { return nan; }
  let qs = scale_for(q_max);
  let ts = scale_for(t_max);
  var dot = 0.0;
  var qq = 0.0;
  var tt = 0.0;
  for (var d = 0u; d < params.dim; d++) {
    let a = queries[q_base + d] * qs;
    let b = targets[t_base + d] * ts;
    dot += a * b;
    qq += a * a;
    tt += b * b;
  }
  // Subnormal rows flushed by this GPU are zero vectors here.
  if (qq == 0.0 || tt == 0.0) { return 0.0; }
  return dot / (sqrt(qq) * sqrt(tt));
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
  // No early return: every invocation must reach the barriers below.
  let valid = o < params.nq * params.nt;
  var q_base = 0u;
  var t_base = 0u;
  var sums = vec3f(0.0);
  if (valid) {
    q_base = (o / params.nt) * params.dim;
    t_base = (o % params.nt) * params.dim;
    for (var d = lane; d < params.dim; d += LANES) {
      let a = queries[q_base + d];
      let b = targets[t_base + d];
      sums += vec3f(a * b, a * a, b * b);
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
    out[at] = slow_score(q_base, t_base);
  }
}
