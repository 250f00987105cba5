// cosineSimilarity: out[Q, T] = q . t / (|q| |t|) for queries [Q, D] and targets [T, D], with the op's rules for
// special vectors (CosineSimilarityOp in packages/core/src/ops.ts): NaN in either -> NaN; else a zero vector -> 0;
// else an infinity in either -> NaN; else the cosine, whatever the vectors' lengths. The fast path is f32 dots and
// sums of squares; a query whose squared norm falls outside [2^-80, 2^126] is first rescaled by a power of two
// (rescaledQueries), and a pair where either squared norm is still outside (a zero, tiny, huge, Inf or NaN row:
// rare) is recomputed in f64 by scoreSlow, where no square of an f32 value underflows or overflows.
// Squared target norms live in a caller-given array: when `normsReady` is 0 they are computed in the same pass that
// reads each target for its dot products (each target is read from memory once per call) and stored there; when 1
// they are read back (the backend keeps them next to a resident targets buffer), so later calls only stream dots.
// One query: fused loops; several: targets in L2-sized chunks while every query passes over them.
import { madd, hsum } from './shared/simd_math';

/** Targets per chunk when there are several queries: 48 x 768 floats stay in L2 while every query passes. */
const TARGET_CHUNK: i32 = 48;

/** Scratch bytes cosine_similarity_f32 needs: the squared norms of the queries, then room for rescaled copies. */
export function cosine_similarity_scratch_bytes(nq: i32, dim: i32): usize {
  return (<usize>nq << 2) + 16 + (<usize>nq * <usize>dim << 2) + 16;
}

/**
 * Fills columns [tBegin, tEnd) of out (nq rows of nt floats). targetNorms holds nt squared norms, computed here
 * unless normsReady; scratch: cosine_similarity_scratch_bytes(nq, dim).
 */
export function cosine_similarity_f32(
  queries: usize, targets: usize, out: usize, nq: i32, nt: i32, dim: i32, tBegin: i32, tEnd: i32, scratch: usize,
  targetNorms: usize, normsReady: bool,
): void {
  const rowBytes = <usize>dim << 2;
  const outRow = <usize>nt << 2;
  let rescale = false;
  for (let qi = 0; qi < nq; qi++) {
    const qp = queries + <usize>qi * rowBytes;
    const qq = dot(qp, qp, dim);
    store<f32>(scratch + (<usize>qi << 2), qq);
    if (!inFastRange(qq) && rowScale(qp, dim) != 0) rescale = true;
  }
  // A finite non-zero query whose f32 sum of squares under- or overflows: score rescaled copies of the queries
  // (exact power-of-two scaling; the cosine does not change), so its pairs stay on the fast path.
  if (rescale) queries = rescaledQueries(queries, nq, dim, scratch);
  if (nq == 1) {
    const qq = load<f32>(scratch);
    for (let t = tBegin; t < tEnd; t++) {
      const tp = targets + <usize>t * rowBytes;
      const normAt = targetNorms + (<usize>t << 2);
      if (normsReady) {
        store<f32>(out + (<usize>t << 2), score(dot(queries, tp, dim), qq, load<f32>(normAt), queries, tp, dim));
        continue;
      }
      let d0 = f32x4.splat(0), d1 = d0, d2 = d0, d3 = d0;
      let n0 = d0, n1 = d0, n2 = d0, n3 = d0;
      let i = 0;
      for (; i + 16 <= dim; i += 16) {
        const o = <usize>i << 2;
        const t0 = v128.load(tp + o), t1 = v128.load(tp + o, 16), t2 = v128.load(tp + o, 32), t3 = v128.load(tp + o, 48);
        d0 = madd(t0, v128.load(queries + o), d0);
        d1 = madd(t1, v128.load(queries + o, 16), d1);
        d2 = madd(t2, v128.load(queries + o, 32), d2);
        d3 = madd(t3, v128.load(queries + o, 48), d3);
        n0 = madd(t0, t0, n0);
        n1 = madd(t1, t1, n1);
        n2 = madd(t2, t2, n2);
        n3 = madd(t3, t3, n3);
      }
      for (; i + 4 <= dim; i += 4) {
        const o = <usize>i << 2;
        const tv = v128.load(tp + o);
        d0 = madd(tv, v128.load(queries + o), d0);
        n0 = madd(tv, tv, n0);
      }
      let dp = hsum(f32x4.add(f32x4.add(d0, d1), f32x4.add(d2, d3)));
      let tt = hsum(f32x4.add(f32x4.add(n0, n1), f32x4.add(n2, n3)));
      for (; i < dim; i++) {
        const tv = load<f32>(tp + (<usize>i << 2));
        dp += tv * load<f32>(queries + (<usize>i << 2));
        tt += tv * tv;
      }
      store<f32>(normAt, tt);
      store<f32>(out + (<usize>t << 2), score(dp, qq, tt, queries, tp, dim));
    }
    return;
  }
  for (let t0 = tBegin; t0 < tEnd; t0 += TARGET_CHUNK) {
    const t1 = min(t0 + TARGET_CHUNK, tEnd);
    if (!normsReady) {
      for (let t = t0; t < t1; t++) {
        const tp = targets + <usize>t * rowBytes;
        store<f32>(targetNorms + (<usize>t << 2), dot(tp, tp, dim));
      }
    }
    for (let qi = 0; qi < nq; qi++) {
      const qp = queries + <usize>qi * rowBytes;
      const qq = load<f32>(scratch + (<usize>qi << 2));
      for (let t = t0; t < t1; t++) {
        const tp = targets + <usize>t * rowBytes;
        store<f32>(out + <usize>qi * outRow + (<usize>t << 2), score(dot(qp, tp, dim), qq, load<f32>(targetNorms + (<usize>t << 2)), qp, tp, dim));
      }
    }
  }
}

/** Smallest squared norm the f32 fast path takes (2^-80): below it, subnormal products would matter. */
const FAST_MIN_SQUARES: f32 = 8.271806125530277e-25;
/** Largest squared norm the f32 fast path takes (2^126): above it, the dot could overflow. */
const FAST_MAX_SQUARES: f32 = 8.507059173023462e37;

/** Whether a sum of squares is in the fast path's range (false for NaN). */
@inline function inFastRange(squares: f32): bool {
  return squares >= FAST_MIN_SQUARES && squares <= FAST_MAX_SQUARES;
}

/** dp / sqrt(qq tt) when both squared norms are in the fast range, else scoreSlow. */
@inline function score(dp: f32, qq: f32, tt: f32, qp: usize, tp: usize, dim: i32): f32 {
  if (inFastRange(qq) && inFastRange(tt)) return <f32>(<f64>dp / Math.sqrt(<f64>qq * <f64>tt));
  return scoreSlow(qp, tp, dim);
}

/** A power of two bringing the row's largest |entry| into [1, 4), or 0 for a row with a NaN or infinity or all zeros. */
function rowScale(p: usize, dim: i32): f32 {
  let largest: f32 = 0;
  for (let i = 0; i < dim; i++) {
    const v = Mathf.abs(load<f32>(p + (<usize>i << 2)));
    if (!(v <= Infinity) || v == Infinity) return 0; // NaN or infinity
    if (v > largest) largest = v;
  }
  if (largest == 0) return 0;
  const e = min(max(<i32>(reinterpret<u32>(largest) >> 23) - 127, -126), 126);
  return reinterpret<f32>(<u32>(127 - e) << 23);
}

/**
 * Copies of the nq queries into scratch (after the squared norms), each finite non-zero row scaled by rowScale (the
 * others as they are); rewrites the squared norms; returns the copies' address.
 */
function rescaledQueries(queries: usize, nq: i32, dim: i32, scratch: usize): usize {
  const copies = (scratch + (<usize>nq << 2) + 15) & ~(<usize>15);
  const rowBytes = <usize>dim << 2;
  for (let qi = 0; qi < nq; qi++) {
    const from = queries + <usize>qi * rowBytes;
    const to = copies + <usize>qi * rowBytes;
    const scale = rowScale(from, dim);
    const factor: f32 = scale == 0 ? 1 : scale;
    for (let i = 0; i < dim; i++) store<f32>(to + (<usize>i << 2), load<f32>(from + (<usize>i << 2)) * factor);
    store<f32>(scratch + (<usize>qi << 2), dot(to, to, dim));
  }
  return copies;
}

/** The score of one pair by the op's rules, in f64 (no f32 square under- or overflows there). */
function scoreSlow(qp: usize, tp: usize, dim: i32): f32 {
  let qq: f64 = 0, tt: f64 = 0, dp: f64 = 0;
  let nan = false, infinite = false;
  for (let i = 0; i < dim; i++) {
    const a = <f64>load<f32>(qp + (<usize>i << 2));
    const b = <f64>load<f32>(tp + (<usize>i << 2));
    if (a != a || b != b) nan = true;
    if (Math.abs(a) == Infinity || Math.abs(b) == Infinity) infinite = true;
    qq += a * a;
    tt += b * b;
    dp += a * b;
  }
  if (nan) return NaN;
  if (qq == 0 || tt == 0) return 0;
  if (infinite) return NaN;
  return <f32>(dp / Math.sqrt(qq * tt));
}

/** Dot product of two dim-float vectors, four accumulators. */
@inline function dot(a: usize, b: usize, dim: i32): f32 {
  let s0 = f32x4.splat(0), s1 = s0, s2 = s0, s3 = s0;
  let i = 0;
  for (; i + 16 <= dim; i += 16) {
    const o = <usize>i << 2;
    s0 = madd(v128.load(a + o), v128.load(b + o), s0);
    s1 = madd(v128.load(a + o, 16), v128.load(b + o, 16), s1);
    s2 = madd(v128.load(a + o, 32), v128.load(b + o, 32), s2);
    s3 = madd(v128.load(a + o, 48), v128.load(b + o, 48), s3);
  }
  for (; i + 4 <= dim; i += 4) s0 = madd(v128.load(a + (<usize>i << 2)), v128.load(b + (<usize>i << 2)), s0);
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < dim; i++) s += load<f32>(a + (<usize>i << 2)) * load<f32>(b + (<usize>i << 2));
  return s;
}
