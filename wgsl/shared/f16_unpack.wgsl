// f16_unpack: binary16 values stored two per 32-bit word (element i in bits 16 * (i % 2) and up of word i / 2) ->
// f32, exactly: the kernels read f16 tensors widened to f32 (every binary16 value, subnormals, infinities and NaN
// included, is an f32 value). Integer operations only: no shader-f16 needed, and no rounding mode involved.
//
// Bindings (group 0):
//   @binding(0) src     storage, read        array<u32>  ceil(n / 2) words of packed binary16
//   @binding(1) dst     storage, read_write  array<f32>  n values
//   @binding(2) params  uniform              Params      n = elements
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(n / WG) workgroups over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

//! include shared/f16.wgsl

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  dst[i] = half_to_float((src[i / 2u] >> (16u * (i % 2u))) & 0xffffu);
}
