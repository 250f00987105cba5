// dequantize_q8_0: ggml Q8_0 blocks -> f32. Block b (34 bytes at byte 34 * b): f16 scale d, then 32 int8 q;
// value 32 * b + j = d * q[j]. Blocks are not 4-byte aligned, so the bytes are read from u32 words.
//
// Bindings (group 0):
//   @binding(0) blocks  storage, read        array<u32>  raw block bytes, little-endian words (zero-padded)
//   @binding(1) out     storage, read_write  array<f32>  n values
//   @binding(2) params  uniform              Params      n = values
// Overrides: WG (invocations per workgroup).
// Dispatch: ceil(n / WG) workgroups over x and y (linear id = x + y * num_workgroups.x).

struct Params {
  n: u32,
}

override WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> blocks: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

const BLOCK_BYTES: u32 = 34u;

// The 4 bytes starting at any byte offset, as a little-endian word.
fn word_at(byte_offset: u32) -> u32 {
  let wi = byte_offset >> 2u;
  let shift = (byte_offset & 3u) * 8u;
  if (shift == 0u) { return blocks[wi]; }
  return (blocks[wi] >> shift) | (blocks[wi + 1u] << (32u - shift));
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.x + wid.y * nwg.x) * WG + lid;
  if (i >= params.n) { return; }
  let block = i / 32u;
  let j = i % 32u;
  let offset = block * BLOCK_BYTES;
  let d = unpack2x16float(word_at(offset)).x;
  let q = extractBits(bitcast<i32>(word_at(offset + 2u + j)), 0u, 8u);
  out[i] = d * f32(q);
}
