// cosineSimilarity: out[Q, T] = q . t / (|q| |t|) for queries [Q, D] and targets [T, D]; a zero vector scores 0.
// Squared target norms live in a caller-given array: when `normsReady` is 0 they are computed in the same pass that
// reads each target for its dot products (each target is read from memory once per call) and stored there; when 1
// they are read back (the backend keeps them next to a resident targets buffer), so later calls only stream dots.
// One query: fused loops; several: targets in L2-sized chunks while every query passes over them.
import { madd, hsum } from './simd_math';

/** Targets per chunk when there are several queries: 48 x 768 floats stay in L2 while every query passes. */
const TARGET_CHUNK: i32 = 48;

/** Scratch bytes cosine_similarity_f32 needs: the squared norms of the queries. */
export function cosine_similarity_scratch_bytes(nq: i32): usize {
  return (<usize>nq << 2) + 16;
}

/**
 * Fills columns [tBegin, tEnd) of out (nq rows of nt floats). targetNorms holds nt squared norms, computed here
 * unless normsReady; scratch: cosine_similarity_scratch_bytes(nq).
 */
export function cosine_similarity_f32(
  queries: usize, targets: usize, out: usize, nq: i32, nt: i32, dim: i32, tBegin: i32, tEnd: i32, scratch: usize,
  targetNorms: usize, normsReady: bool,
): void {
  const rowBytes = <usize>dim << 2;
  const outRow = <usize>nt << 2;
  for (let qi = 0; qi < nq; qi++) {
    const qp = queries + <usize>qi * rowBytes;
    store<f32>(scratch + (<usize>qi << 2), dot(qp, qp, dim));
  }
  if (nq == 1) {
    const qq = load<f32>(scratch);
    for (let t = tBegin; t < tEnd; t++) {
      const tp = targets + <usize>t * rowBytes;
      const normAt = targetNorms + (<usize>t << 2);
      if (normsReady) {
        store<f32>(out + (<usize>t << 2), score(dot(queries, tp, dim), qq, load<f32>(normAt)));
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
      store<f32>(out + (<usize>t << 2), score(dp, qq, tt));
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
        const dp = dot(qp, targets + <usize>t * rowBytes, dim);
        store<f32>(out + <usize>qi * outRow + (<usize>t << 2), score(dp, qq, load<f32>(targetNorms + (<usize>t << 2))));
      }
    }
  }
}

/** dp / sqrt(qq tt), 0 when either vector is zero. */
@inline function score(dp: f32, qq: f32, tt: f32): f32 {
  if (qq == 0 || tt == 0) return 0;
  return <f32>(<f64>dp / Math.sqrt(<f64>qq * <f64>tt));
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
