// f16_pack: f32 -> binary16, two per 32-bit word (element i in bits 16 * (i % 2) and up of word i / 2), rounding to
// nearest even; overflow goes to +-inf, NaN to the quiet NaN 0x7e00 with its sign (as floatToHalf in core/half.ts).
// Kernels producing f16 already round their results to binary16 (ROUND_F16), so this only re-encodes them.
// Integer operations only: no shader-f16 needed, and no rounding mode involved.
//
// Bindings (group 0):
//   @binding(0) src     storage, read        array<f32>  n values
//   @binding(1) dst     storage, read_write  array<u32>  ceil(n / 2) words; the high half of the last word of an odd
//                                                        n is 0
//   @binding(2) params  uniform              Params      n = elements
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(ceil(n / 2) / WG) workgroups over x and y (linear id = x + y * num_workgroups.x); one word each.

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

//! include shared/f16.wgsl

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let w = (wid.x + wid.y * nwg.x) * WG + lid;
  let i = 2u * w;
  if (i >= params.n) { return; }
  var word = float_to_half(src[i]);
  if (i + 1u < params.n) { word = word | (float_to_half(src[i + 1u]) << 16u); }
  dst[w] = word;
}
