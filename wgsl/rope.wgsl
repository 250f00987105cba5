// rope: rotary position embedding on x [seq, heads, head_dim]; token s has position position_offset + s.
// Pair i (0 <= i < head_dim / 2) rotates by angle pos * base^(-2i / head_dim):
//   interleaved (ggml 'normal'): dimensions (2i, 2i + 1);  neox: dimensions (i, i + head_dim / 2).
// One invocation per pair. Angles are range-reduced to [-pi, pi] before sin/cos (WGSL only bounds
// their error there).
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

// 2*pi split in two (Cody-Waite): TWO_PI_HI has few mantissa bits so k * TWO_PI_HI is exact.
const TWO_PI_HI: f32 = 6.28125;
const TWO_PI_LO: f32 = 0.0019353071795864769;
const INV_TWO_PI: f32 = 0.15915494309189535;

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
  let k = round(angle * INV_TWO_PI);
  let reduced = (angle - k * TWO_PI_HI) - k * TWO_PI_LO;
  let c = cos(reduced);
  let sn = sin(reduced);
  let x0 = x[i0];
  let x1 = x[i1];
  out[i0] = x0 * c - x1 * sn;
  out[i1] = x0 * sn + x1 * c;
}
