// rope: rotary position embedding on x [seq, heads, head_dim]; token s has position position_offset + s.
// Pair i (0 <= i < head_dim / 2) rotates by angle pos * base^(-2i / head_dim):
//   interleaved (ggml 'normal'): dimensions (2i, 2i + 1);  neox: dimensions (i, i + head_dim / 2).
// One invocation per pair. sin and cos are computed in-shader to ~1 ulp (see sin_cos).
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<f32>  input [seq, heads, head_dim]
//   @binding(1) out     storage, read_write  array<f32>  result, x's shape
//   @binding(2) params  uniform              Params      seq, heads, head_dim, position_offset, log2_base, neox (0/1)
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(seq * heads * head_dim / 2 / WG) workgroups over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  seq: u32,
  heads: u32,
  head_dim: u32,
  position_offset: u32,
  log2_base: f32,
  neox: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

// pi/2 split in three (Cody-Waite): PIO2_1 has few mantissa bits so k * PIO2_1 is exact for |k| < 2^16.
const PIO2_1: f32 = 1.5703125;
const PIO2_2: f32 = 4.837512969970703125e-4;
const PIO2_3: f32 = 7.54978995489188216e-8;
const TWO_OVER_PI: f32 = 0.6366197723675814;

// (sin, cos) of an angle to about 1 ulp: range-reduced to [-pi/4, pi/4] and evaluated by polynomials
// (cephes sinf/cosf), because WGSL only bounds sin/cos to 2^-11 absolute error and software GPUs use that.
fn sin_cos(angle: f32) -> vec2<f32> {
  let k = round(angle * TWO_OVER_PI);
  let r = ((angle - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
  let z = r * r;
  let s = r + r * z * (-1.6666654611e-1 + z * (8.3321608736e-3 + z * -1.9515295891e-4));
  let c = 1.0 - 0.5 * z + z * z * (4.166664568298827e-2 + z * (-1.388731625493765e-3 + z * 2.443315711809948e-5));
  let quadrant = i32(k) & 3;
  if (quadrant == 0) { return vec2<f32>(s, c); }
  if (quadrant == 1) { return vec2<f32>(c, -s); }
  if (quadrant == 2) { return vec2<f32>(-s, -c); }
  return vec2<f32>(-c, s);
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let half = params.head_dim / 2u;
  let p = (wid.x + wid.y * nwg.x) * WG + lid;
  if (p >= params.seq * params.heads * half) { return; }
  let row = p / half;
  let i = p % half;
  let s = row / params.heads;
  var i0 = row * params.head_dim + 2u * i;
  var i1 = i0 + 1u;
  if (params.neox != 0u) {
    i0 = row * params.head_dim + i;
    i1 = i0 + half;
  }
  let pos = f32(params.position_offset + s);
  let freq = exp2(-f32(2u * i) / f32(params.head_dim) * params.log2_base);
  let angle = pos * freq;
  let sc = sin_cos(angle);
  let sn = sc.x;
  let c = sc.y;
  let x0 = x[i0];
  let x1 = x[i1];
  out[i0] = x0 * c - x1 * sn;
  out[i1] = x0 * sn + x1 * c;
}
