// quantized_matmul_q4_0: out[m, n] = sum_k x[m, k] * w[n, k], ggml's mul_mat with Q4_0 weights.
// x is f32 [M, K] (K a multiple of 32); w is [N, K] as Q4_0 blocks (18 bytes: f16 scale d, 16 bytes whose
// low nibbles are values 0..15 and high nibbles values 16..31, each d * (nibble - 8)), row n starting at block
// n * K / 32. Blocks are not 4-byte aligned: nibbles are read as u32 words (funnel-shifted when unaligned).
// Each workgroup computes TM rows of one output column: its invocations take blocks in turn, decode each once
// for all TM rows, then reduce in workgroup memory.
//
// Bindings (group 0):
//   @binding(0) x       storage, read        array<vec4<f32>>  activations [M, K]
//   @binding(1) w       storage, read        array<u32>        weight block bytes (zero-padded)
//   @binding(2) out     storage, read_write  array<f32>        [M, N]
//   @binding(3) params  uniform              Params            m, n, k, row_groups = ceil(M / TM)
// Overrides: WG (invocations per workgroup, a power of two: tree reduction).
// Dispatch: N * ceil(M / TM) workgroups over x and y (linear id = x + y * num_workgroups.x;
//   column = id % N, row group = id / N).

struct Params {
  m: u32,
  n: u32,
  k: u32,
  row_groups: u32,
}

override WG: u32 = 64u;
const TM: u32 = 4u;
const BLOCK_BYTES: u32 = 18u;

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> partial: array<f32, WG * TM>;

// The 4 bytes starting at any byte offset, as a little-endian word.
fn word_at(byte_offset: u32) -> u32 {
  let wi = byte_offset >> 2u;
  let shift = (byte_offset & 3u) * 8u;
  if (shift == 0u) { return w[wi]; }
  return (w[wi] >> shift) | (w[wi + 1u] << (32u - shift));
}

// The nibbles of a word at bit `first` of each byte (0: low nibbles, 4: high nibbles), minus 8.
fn nibbles(word: u32, first: u32) -> vec4<f32> {
  return vec4<f32>(f32(extractBits(word, first, 4u)), f32(extractBits(word, first + 8u, 4u)),
                   f32(extractBits(word, first + 16u, 4u)), f32(extractBits(word, first + 24u, 4u))) - vec4<f32>(8.0);
}

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let g = wid.x + wid.y * nwg.x;
  if (g >= params.n * params.row_groups) { return; }
  let col = g % params.n;
  let m0 = (g / params.n) * TM;
  let blocks_per_row = params.k / 32u;
  let k4 = params.k / 4u;

  var acc = array<f32, TM>(0.0, 0.0, 0.0, 0.0);
  for (var b = lid; b < blocks_per_row; b += WG) {
    let offset = (col * blocks_per_row + b) * BLOCK_BYTES;
    let d = unpack2x16float(word_at(offset)).x;
    var sums = array<f32, TM>(0.0, 0.0, 0.0, 0.0);
    for (var part = 0u; part < 4u; part++) {
      let word = word_at(offset + 2u + 4u * part);
      let low = nibbles(word, 0u);
      let high = nibbles(word, 4u);
      for (var r = 0u; r < TM; r++) {
        let row_base = min(m0 + r, params.m - 1u) * k4 + b * 8u;
        sums[r] += dot(low, x[row_base + part]) + dot(high, x[row_base + 4u + part]);
      }
    }
    for (var r = 0u; r < TM; r++) { acc[r] += d * sums[r]; }
  }
  for (var r = 0u; r < TM; r++) { partial[r * WG + lid] = acc[r]; }
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (lid < stride) {
      for (var r = 0u; r < TM; r++) { partial[r * WG + lid] += partial[r * WG + lid + stride]; }
    }
  }
  workgroupBarrier();
  if (lid < TM && m0 + lid < params.m) {
    out[(m0 + lid) * params.n + col] = partial[lid * WG];
  }
}
