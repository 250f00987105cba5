// attention: out[Sq, H, D] = softmax(scale q k^T (+ causal mask)) v, grouped KV heads (head h reads kv head h / (H / Hkv)).
// Query i has absolute position Sk - Sq + i; causal attention sees keys at positions <= its own.
import { madd, hsum } from './shared/simd_math';
import { rowMax, expShifted } from './softmax';

/** Scratch bytes attention_f32 needs per calling thread: one row of scores. */
export function attention_scratch_bytes(sk: i32): usize {
  return (<usize>sk << 2) + 16;
}

/**
 * Computes output rows [rowBegin, rowEnd) of the Sq x H (query, head) rows, row = query * H + head, so threads can
 * split decode (one query, many heads) as well as prefill; scratch: attention_scratch_bytes(sk).
 */
export function attention_f32(
  q: usize, k: usize, v: usize, out: usize, sq: i32, sk: i32, heads: i32, kvHeads: i32, dim: i32, scale: f32, causal: bool,
  scratch: usize, rowBegin: i32, rowEnd: i32,
): void {
  const group = heads / kvHeads;
  const rowBytes = <usize>dim << 2;
  const kvStride = <usize>kvHeads * rowBytes;
  for (let row = rowBegin; row < rowEnd; row++) {
    const i = row / heads;
    const h = row - i * heads;
    const visible = causal ? min(sk, sk - sq + i + 1) : sk;
    const qRow = q + <usize>row * rowBytes;
    const oRow = out + <usize>row * rowBytes;
    const kvOffset = <usize>(h / group) * rowBytes;
    if (visible <= 0) {
      memory.fill(oRow, 0, rowBytes);
      continue;
    }
    for (let j = 0; j < visible; j++) {
      store<f32>(scratch + (<usize>j << 2), dot(qRow, k + <usize>j * kvStride + kvOffset, dim) * scale);
    }
    const top = rowMax(scratch, visible);
    if (top == -Infinity) {
      memory.fill(oRow, 0, rowBytes);
      continue;
    }
    const sum = expShifted(scratch, scratch, visible, top);
    weightedSum(scratch, visible, v + kvOffset, kvStride, dim, <f32>(1.0 / <f64>sum), oRow);
  }
}

/** Dot product of two dim-float vectors. */
@inline function dot(a: usize, b: usize, dim: i32): f32 {
  let s0 = f32x4.splat(0), s1 = s0;
  let d = 0;
  for (; d + 8 <= dim; d += 8) {
    const o = <usize>d << 2;
    s0 = madd(v128.load(a + o), v128.load(b + o), s0);
    s1 = madd(v128.load(a + o, 16), v128.load(b + o, 16), s1);
  }
  for (; d + 4 <= dim; d += 4) s0 = madd(v128.load(a + (<usize>d << 2)), v128.load(b + (<usize>d << 2)), s0);
  let s = hsum(f32x4.add(s0, s1));
  for (; d < dim; d++) s += load<f32>(a + (<usize>d << 2)) * load<f32>(b + (<usize>d << 2));
  return s;
}

/** out[dim] = norm * sum over j < count of p[j] * v_j, where row j of v is at v + j * stride. */
function weightedSum(p: usize, count: i32, v: usize, stride: usize, dim: i32, norm: f32, out: usize): void {
  memory.fill(out, 0, <usize>dim << 2);
  for (let j = 0; j < count; j++) {
    const w = load<f32>(p + (<usize>j << 2)) * norm;
    const wv = f32x4.splat(w);
    const row = v + <usize>j * stride;
    let d = 0;
    for (; d + 4 <= dim; d += 4) {
      const o = <usize>d << 2;
      v128.store(out + o, madd(wv, v128.load(row + o), v128.load(out + o)));
    }
    for (; d < dim; d++) {
      const o = <usize>d << 2;
      store<f32>(out + o, load<f32>(out + o) + w * load<f32>(row + o));
    }
  }
}
