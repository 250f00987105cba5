// matmul_f32_vec4: out = a [M, K] x b [K, N] when K and N are multiples of 4 (M is free): the same 64 x 64
// tiling as matmul_f32 (16 x 16 invocations, 4 x 4 register block each, K in steps of 16 through workgroup
// memory) with vec4 global loads and stores. ROUND_F16 rounds results to binary16 (f16 tensors, widened to f32).
//
// Bindings (group 0):
//   @binding(0) a       storage, read        array<vec4<f32>>  [M, K / 4]
//   @binding(1) b       storage, read        array<vec4<f32>>  [K, N / 4]
//   @binding(2) out     storage, read_write  array<vec4<f32>>  [M, N / 4]
//   @binding(3) params  uniform              Params            m, n, k
// Overrides: ROUND_F16 (round results to binary16). The tile shape is fixed (16 x 16 invocations).
// Dispatch: (ceil(N / 64), ceil(M / 64)) workgroups.

struct Params {
  m: u32,
  n: u32,
  k: u32,
}

override ROUND_F16: bool = false;
const TILE: u32 = 64u;
const TK: u32 = 16u;

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

// a_tile[kk * 16 + r4] holds rows 4 * r4 .. 4 * r4 + 3 of column kk; b_tile[kk * 16 + c4] columns 4 * c4 .. + 3.
var<workgroup> a_tile: array<vec4<f32>, 256>;
var<workgroup> b_tile: array<vec4<f32>, 256>;

//! include shared/f16.wgsl

@compute @workgroup_size(16, 16)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) local: vec3u,
  @builtin(local_invocation_index) tid: u32,
) {
  let m0 = wid.y * TILE;
  let n0 = wid.x * TILE;
  let tx = local.x;
  let ty = local.y;
  let k4 = params.k / 4u;
  let n4 = params.n / 4u;
  var acc = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

  // Each invocation loads one vec4 of each tile: a row ar, k-quad aq; b row bk, column-quad bq.
  let ar = tid / 4u;
  let aq = tid % 4u;
  let bk = tid / 16u;
  let bq = tid % 16u;
  for (var k0 = 0u; k0 < params.k; k0 += TK) {
    var av = vec4<f32>(0.0);
    if (m0 + ar < params.m && k0 + aq * 4u < params.k) { av = a[(m0 + ar) * k4 + k0 / 4u + aq]; }
    a_tile[(aq * 4u + 0u) * 16u + ar / 4u][ar % 4u] = av.x;
    a_tile[(aq * 4u + 1u) * 16u + ar / 4u][ar % 4u] = av.y;
    a_tile[(aq * 4u + 2u) * 16u + ar / 4u][ar % 4u] = av.z;
    a_tile[(aq * 4u + 3u) * 16u + ar / 4u][ar % 4u] = av.w;
    var bv = vec4<f32>(0.0);
    if (k0 + bk < params.k && n0 + bq * 4u < params.n) { bv = b[(k0 + bk) * n4 + n0 / 4u + bq]; }
    b_tile[bk * 16u + bq] = bv;
    workgroupBarrier();
    for (var kk = 0u; kk < TK; kk++) {
      let a4 = a_tile[kk * 16u + ty];
      let b4 = b_tile[kk * 16u + tx];
      acc[0] += a4.x * b4;
      acc[1] += a4.y * b4;
      acc[2] += a4.z * b4;
      acc[3] += a4.w * b4;
    }
    workgroupBarrier();
  }

  let col4 = n0 / 4u + tx;
  if (col4 >= n4) { return; }
  for (var r = 0u; r < 4u; r++) {
    let row = m0 + ty * 4u + r;
    if (row >= params.m) { return; }
    var v = acc[r];
    if (ROUND_F16) { v = vec4<f32>(round_f16(v.x), round_f16(v.y), round_f16(v.z), round_f16(v.w)); }
    out[row * n4 + col4] = v;
  }
}
