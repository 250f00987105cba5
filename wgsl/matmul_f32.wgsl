// matmul_f32: out = a [M, K] x b [K, N], any sizes (bounds-checked scalar loads; see matmul_f32_vec4 for the
// fast path when K and N are multiples of 4). A 16 x 16 workgroup computes a 64 x 64 output tile; each
// invocation a 4 x 4 register block. K advances in steps of 16 through workgroup memory: the a-tile is stored
// transposed as vec4 columns of 4 rows, the b-tile as vec4 rows of 4 columns, so the inner loop does two
// vec4 workgroup loads per 16 multiply-adds. ROUND_F16 rounds results to binary16 (f16 tensors, widened to f32).
//
// Bindings (group 0):
//   @binding(0) a       storage, read        array<f32>  [M, K]
//   @binding(1) b       storage, read        array<f32>  [K, N]
//   @binding(2) out     storage, read_write  array<f32>  [M, N]
//   @binding(3) params  uniform              Params      m, n, k
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
const THREADS: u32 = 256u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
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
  var acc = array<vec4<f32>, 4>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));

  for (var k0 = 0u; k0 < params.k; k0 += TK) {
    for (var l = 0u; l < 4u; l++) {
      let idx = tid + l * THREADS;
      // a: 64 rows x 16 columns, consecutive invocations along k.
      let ar = idx / TK;
      let ak = idx % TK;
      var av = 0.0;
      if (m0 + ar < params.m && k0 + ak < params.k) { av = a[(m0 + ar) * params.k + k0 + ak]; }
      a_tile[ak * 16u + ar / 4u][ar % 4u] = av;
      // b: 16 rows x 64 columns, consecutive invocations along n.
      let bk = idx / TILE;
      let bc = idx % TILE;
      var bv = 0.0;
      if (k0 + bk < params.k && n0 + bc < params.n) { bv = b[(k0 + bk) * params.n + n0 + bc]; }
      b_tile[bk * 16u + bc / 4u][bc % 4u] = bv;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TK; kk++) {
      let av = a_tile[kk * 16u + ty];
      let bv = b_tile[kk * 16u + tx];
      acc[0] += av.x * bv;
      acc[1] += av.y * bv;
      acc[2] += av.z * bv;
      acc[3] += av.w * bv;
    }
    workgroupBarrier();
  }

  for (var r = 0u; r < 4u; r++) {
    let row = m0 + ty * 4u + r;
    if (row >= params.m) { break; }
    for (var c = 0u; c < 4u; c++) {
      let col = n0 + tx * 4u + c;
      if (col < params.n) {
        var v = acc[r][c];
        if (ROUND_F16) { v = round_f16(v); }
        out[row * params.n + col] = v;
      }
    }
  }
}
