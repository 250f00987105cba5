// rope: rotary position embedding on x [seq, heads, dim]; token s has position positionOffset + s and pair i turns
// by (positionOffset + s) * base^(-2i/dim). 'interleaved' (ggml's normal mode) pairs (2i, 2i+1); 'neox' (i, i + dim/2).
// Angles are advanced in f64 by the angle-addition recurrence and re-anchored on exact cos/sin every 32 positions.

/** Positions between exact re-anchors of the cos/sin recurrence. */
const ANCHOR_EVERY: i32 = 32;

/** Scratch bytes rope_f32 needs: a cos and a sin table of seq x dim/2 f32. */
export function rope_scratch_bytes(seq: i32, dim: i32): usize {
  return (<usize>seq * <usize>(dim >> 1)) << 3;
}

/** out = rope(x); neox selects the pairing; scratch holds rope_scratch_bytes(seq, dim). */
export function rope_f32(x: usize, out: usize, seq: i32, heads: i32, dim: i32, positionOffset: i32, base: f64, neox: bool, scratch: usize): void {
  const half = dim >> 1;
  const cosTable = scratch;
  const sinTable = scratch + ((<usize>seq * <usize>half) << 2);
  fillTables(cosTable, sinTable, seq, half, dim, positionOffset, base);
  const rowBytes = <usize>dim << 2;
  for (let s = 0; s < seq; s++) {
    const c = cosTable + ((<usize>s * <usize>half) << 2);
    const sn = sinTable + ((<usize>s * <usize>half) << 2);
    for (let h = 0; h < heads; h++) {
      const offset = (<usize>s * <usize>heads + <usize>h) * rowBytes;
      if (neox) rotateHalves(x + offset, out + offset, c, sn, half);
      else rotatePairs(x + offset, out + offset, c, sn, half);
    }
  }
}

/** cos/sin of (positionOffset + s) * base^(-2i/dim) for s < seq, i < half, into [seq][half] tables. */
function fillTables(cosTable: usize, sinTable: usize, seq: i32, half: i32, dim: i32, positionOffset: i32, base: f64): void {
  for (let i = 0; i < half; i++) {
    const freq = Math.pow(base, -2.0 * <f64>i / <f64>dim);
    const stepCos = Math.cos(freq);
    const stepSin = Math.sin(freq);
    let c: f64 = 0, sn: f64 = 0;
    for (let s = 0; s < seq; s++) {
      if (s % ANCHOR_EVERY == 0) {
        const angle = <f64>(positionOffset + s) * freq;
        c = Math.cos(angle);
        sn = Math.sin(angle);
      } else {
        const next = c * stepCos - sn * stepSin;
        sn = sn * stepCos + c * stepSin;
        c = next;
      }
      const at = (<usize>s * <usize>half + <usize>i) << 2;
      store<f32>(cosTable + at, <f32>c);
      store<f32>(sinTable + at, <f32>sn);
    }
  }
}

/** neox: (x[i], x[i + half]) -> (x[i] c - x[i + half] s, x[i + half] c + x[i] s). */
@inline function rotateHalves(x: usize, out: usize, c: usize, sn: usize, half: i32): void {
  const hb = <usize>half << 2;
  let i = 0;
  for (; i + 4 <= half; i += 4) {
    const o = <usize>i << 2;
    const a = v128.load(x + o), b = v128.load(x + hb + o);
    const cv = v128.load(c + o), sv = v128.load(sn + o);
    v128.store(out + o, f32x4.sub(f32x4.mul(a, cv), f32x4.mul(b, sv)));
    v128.store(out + hb + o, f32x4.add(f32x4.mul(b, cv), f32x4.mul(a, sv)));
  }
  for (; i < half; i++) {
    const o = <usize>i << 2;
    const a = load<f32>(x + o), b = load<f32>(x + hb + o);
    const cv = load<f32>(c + o), sv = load<f32>(sn + o);
    store<f32>(out + o, a * cv - b * sv);
    store<f32>(out + hb + o, b * cv + a * sv);
  }
}

/** interleaved: (x[2i], x[2i + 1]) -> (x[2i] c - x[2i + 1] s, x[2i + 1] c + x[2i] s). */
@inline function rotatePairs(x: usize, out: usize, c: usize, sn: usize, half: i32): void {
  let i = 0;
  for (; i + 2 <= half; i += 2) {
    const v = v128.load(x + (<usize>i << 3));
    const cv = v128.load64_splat(c + (<usize>i << 2));
    const sv = v128.load64_splat(sn + (<usize>i << 2));
    const cc = i32x4.shuffle(cv, cv, 0, 0, 1, 1);
    const ss = i32x4.shuffle(sv, sv, 0, 0, 1, 1);
    const swapped = i32x4.shuffle(v, v, 1, 0, 3, 2);
    // lanes: even ones get -x[2i+1] s, odd ones +x[2i] s
    const rotated = f32x4.mul(swapped, ss);
    const signed = i32x4.shuffle(f32x4.neg(rotated), rotated, 0, 5, 2, 7);
    v128.store(out + (<usize>i << 3), f32x4.add(f32x4.mul(v, cc), signed));
  }
  for (; i < half; i++) {
    const o = <usize>i << 3;
    const a = load<f32>(x + o), b = load<f32>(x + o, 4);
    const cv = load<f32>(c + (<usize>i << 2)), sv = load<f32>(sn + (<usize>i << 2));
    store<f32>(out + o, a * cv - b * sv);
    store<f32>(out + o, b * cv + a * sv, 4);
  }
}
