// CPU references in float64 for every native kernel, following the op semantics in packages/core/src/ops.ts.

/** c[m,n] = a[m,k] b[k,n] (bt[n,k] when transB). */
export function matmul(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let p = 0; p < k; p++) {
      const av = a[i * k + p];
      if (av === 0) continue;
      for (let j = 0; j < n; j++) c[i * n + j] += av * b[p * n + j];
    }
  return c;
}

/** out[m,n] = sum_k x[m,k] w[n,k]. */
export function matmulWeightsByRow(x, w, m, k, n) {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += x[i * k + p] * w[j * k + p];
      out[i * n + j] = s;
    }
  return out;
}

/**
 * x as the q8Activations path of quantized_matmul sees it (quantized_matmul_q8act.hip): per block of 32 values,
 * d = f32(max|x| / 127) and q = round-half-even(f32(x / d)) in [-127, 127]; returns d * q (NaN for a block with a
 * non-finite value). Any result then differs from matmulWeightsByRow of these values by f32 rounding only.
 */
export function roundActivationsQ8(x) {
  const out = new Float64Array(x.length);
  for (let b = 0; b < x.length; b += 32) {
    let amax = 0;
    for (let j = b; j < b + 32; j++) amax = Number.isFinite(x[j]) ? Math.max(amax, Math.abs(x[j])) : Infinity;
    const d = Math.fround(amax / 127);
    for (let j = b; j < b + 32; j++) {
      if (!Number.isFinite(amax)) out[j] = NaN;
      else if (amax === 0) out[j] = 0;
      else out[j] = d * Math.max(-127, Math.min(127, roundHalfEven(Math.fround(x[j] / d))));
    }
  }
  return out;
}

function roundHalfEven(v) {
  const f = Math.floor(v);
  const diff = v - f;
  if (diff !== 0.5) return Math.round(v);
  return f % 2 === 0 ? f : f + 1;
}

/** Row softmax; rows entirely -inf (or masked) give zeros; causal row r sees c <= r % causalRows + cols - causalRows. */
export function softmax(x, rows, cols, causalRows) {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let visible = cols;
    if (causalRows > 0) visible = Math.max(0, Math.min(cols, (r % causalRows) + cols - causalRows + 1));
    let max = -Infinity;
    for (let c = 0; c < visible; c++) max = Math.max(max, x[r * cols + c]);
    if (max === -Infinity) continue;
    let sum = 0;
    for (let c = 0; c < visible; c++) sum += Math.exp(x[r * cols + c] - max);
    for (let c = 0; c < visible; c++) out[r * cols + c] = Math.exp(x[r * cols + c] - max) / sum;
  }
  return out;
}

/** x / sqrt(mean(x^2) + eps) * weight. */
export function rmsNorm(x, weight, rows, n, eps) {
  const out = new Float64Array(rows * n);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let c = 0; c < n; c++) s += x[r * n + c] ** 2;
    const inv = 1 / Math.sqrt(s / n + eps);
    for (let c = 0; c < n; c++) out[r * n + c] = x[r * n + c] * inv * (weight ? weight[c] : 1);
  }
  return out;
}

/** Rotary embedding: pair i rotates by (offset + s) * base^(-2i / d); neox pairs (i, i + d/2), else (2i, 2i + 1). */
export function rope(x, seq, heads, d, offset, base, neox) {
  const out = new Float64Array(x.length);
  const half = d / 2;
  for (let s = 0; s < seq; s++)
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < half; i++) {
        const row = (s * heads + h) * d;
        const i0 = neox ? row + i : row + 2 * i;
        const i1 = neox ? i0 + half : i0 + 1;
        const angle = (offset + s) * Math.pow(base, (-2 * i) / d);
        const c = Math.cos(angle);
        const sn = Math.sin(angle);
        out[i0] = x[i0] * c - x[i1] * sn;
        out[i1] = x[i0] * sn + x[i1] * c;
      }
  return out;
}

/** Attention with grouped KV heads; causal query i attends keys j <= sk - sq + i. */
export function attention(q, k, v, sq, sk, heads, kvHeads, d, causal, scale) {
  const out = new Float64Array(sq * heads * d);
  const group = heads / kvHeads;
  for (let i = 0; i < sq; i++)
    for (let h = 0; h < heads; h++) {
      const hk = Math.floor(h / group);
      const jEnd = causal ? Math.min(sk, sk - sq + i + 1) : sk;
      if (jEnd <= 0) continue;
      const scores = new Float64Array(jEnd);
      let max = -Infinity;
      for (let j = 0; j < jEnd; j++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += q[(i * heads + h) * d + c] * k[(j * kvHeads + hk) * d + c];
        scores[j] = s * scale;
        max = Math.max(max, scores[j]);
      }
      let sum = 0;
      for (let j = 0; j < jEnd; j++) sum += (scores[j] = Math.exp(scores[j] - max));
      for (let j = 0; j < jEnd; j++)
        for (let c = 0; c < d; c++) out[(i * heads + h) * d + c] += (scores[j] / sum) * v[(j * kvHeads + hk) * d + c];
    }
  return out;
}

/** Cosine similarity [Q, D] x [T, D] -> [Q, T]; 0 when either vector is zero. */
export function cosine(queries, targets, nq, nt, d) {
  const out = new Float64Array(nq * nt);
  const tn = new Float64Array(nt);
  for (let t = 0; t < nt; t++) {
    let s = 0;
    for (let c = 0; c < d; c++) s += targets[t * d + c] ** 2;
    tn[t] = Math.sqrt(s);
  }
  for (let qi = 0; qi < nq; qi++) {
    let qq = 0;
    for (let c = 0; c < d; c++) qq += queries[qi * d + c] ** 2;
    const qn = Math.sqrt(qq);
    for (let t = 0; t < nt; t++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += queries[qi * d + c] * targets[t * d + c];
      out[qi * nt + t] = qn * tn[t] === 0 ? 0 : dot / (qn * tn[t]);
    }
  }
  return out;
}

/** Per row: the k largest values descending, ties to the lower index, NaN below -inf. */
export function topK(x, rows, n, k) {
  const values = new Float64Array(rows * k);
  const indices = new Int32Array(rows * k);
  for (let r = 0; r < rows; r++) {
    const idx = Array.from({ length: n }, (_, i) => i);
    const v = (i) => x[r * n + i];
    idx.sort((a, b) => {
      const va = v(a);
      const vb = v(b);
      const na = Number.isNaN(va);
      const nb = Number.isNaN(vb);
      if (na !== nb) return na ? 1 : -1;
      if (!na && va !== vb) return vb - va;
      return a - b;
    });
    for (let i = 0; i < k; i++) {
      values[r * k + i] = v(idx[i]);
      indices[r * k + i] = idx[i];
    }
  }
  return { values, indices };
}

/** `iterations` synchronous hops: next[j] = a[j] + decay * sum over edges i->j with a[i] >= threshold of w * a[i]. */
export function spreadActivation(rowPtr, colIdx, weights, initial, decay, threshold, iterations) {
  let a = Float64Array.from(initial);
  const nodes = initial.length;
  for (let it = 0; it < iterations; it++) {
    const next = Float64Array.from(a);
    for (let i = 0; i < nodes; i++) {
      if (!(a[i] >= threshold)) continue;
      for (let e = rowPtr[i]; e < rowPtr[i + 1]; e++) next[colIdx[e]] += decay * weights[e] * a[i];
    }
    a = next;
  }
  return a;
}
