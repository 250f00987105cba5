// Straightforward JS versions of every op (f64 accumulation), written from the comments in core's ops.ts.
import { floatToHalf, halfToFloat, Q4_0_BLOCK_BYTES, Q8_0_BLOCK_BYTES, QUANT_BLOCK } from '@tandem/core';

/** a [m, k] x b [k, n]. */
export function refMatmul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number): Float32Array {
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (a[i * k + p] ?? 0) * (b[p * n + j] ?? 0);
      out[i * n + j] = s;
    }
  }
  return out;
}

/** ggml's quantize_row_q8_0: per block d = amax / 127, q = round(x / d). */
export function quantizeQ8_0(values: ArrayLike<number>): Uint8Array {
  const blocks = Math.ceil(values.length / QUANT_BLOCK);
  const out = new Uint8Array(blocks * Q8_0_BLOCK_BYTES);
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    for (let j = 0; j < QUANT_BLOCK; j++) amax = Math.max(amax, Math.abs(values[b * QUANT_BLOCK + j] ?? 0));
    const d = amax / 127;
    const id = d === 0 ? 0 : 1 / d;
    view.setUint16(b * Q8_0_BLOCK_BYTES, floatToHalf(d), true);
    for (let j = 0; j < QUANT_BLOCK; j++) view.setInt8(b * Q8_0_BLOCK_BYTES + 2 + j, Math.round((values[b * QUANT_BLOCK + j] ?? 0) * id));
  }
  return out;
}

/** ggml's quantize_row_q4_0: d = max / -8 (max = the value of largest magnitude), q = min(15, trunc(x / d + 8.5)). */
export function quantizeQ4_0(values: ArrayLike<number>): Uint8Array {
  const blocks = Math.ceil(values.length / QUANT_BLOCK);
  const out = new Uint8Array(blocks * Q4_0_BLOCK_BYTES);
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    let amax = 0;
    let max = 0;
    for (let j = 0; j < QUANT_BLOCK; j++) {
      const v = values[b * QUANT_BLOCK + j] ?? 0;
      if (Math.abs(v) > amax) {
        amax = Math.abs(v);
        max = v;
      }
    }
    const d = max / -8;
    const id = d === 0 ? 0 : 1 / d;
    view.setUint16(b * Q4_0_BLOCK_BYTES, floatToHalf(d), true);
    for (let j = 0; j < 16; j++) {
      const q0 = Math.min(15, Math.trunc((values[b * QUANT_BLOCK + j] ?? 0) * id + 8.5));
      const q1 = Math.min(15, Math.trunc((values[b * QUANT_BLOCK + j + 16] ?? 0) * id + 8.5));
      out[b * Q4_0_BLOCK_BYTES + 2 + j] = q0 | (q1 << 4);
    }
  }
  return out;
}

/** Q8_0 / Q4_0 bytes -> values. */
export function refDequantize(bytes: Uint8Array, dtype: 'q8_0' | 'q4_0', count: number): Float32Array {
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blockBytes = dtype === 'q8_0' ? Q8_0_BLOCK_BYTES : Q4_0_BLOCK_BYTES;
  for (let i = 0; i < count; i++) {
    const b = Math.floor(i / QUANT_BLOCK);
    const j = i % QUANT_BLOCK;
    const d = halfToFloat(view.getUint16(b * blockBytes, true));
    if (dtype === 'q8_0') out[i] = d * view.getInt8(b * blockBytes + 2 + j);
    else {
      const byte = view.getUint8(b * blockBytes + 2 + (j % 16));
      out[i] = d * ((j < 16 ? byte & 15 : byte >> 4) - 8);
    }
  }
  return out;
}

/** Elementwise with b repeating over a (suffix broadcast). */
export function refBinary(a: ArrayLike<number>, b: ArrayLike<number>, fn: (x: number, y: number) => number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = fn(a[i] ?? 0, b[i % b.length] ?? 0);
  return out;
}

/** x * sigmoid(x). */
export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}

/** Row-wise softmax; causal rows see c <= r + (cols - rows) within each [rows, cols] matrix. */
export function refSoftmax(x: ArrayLike<number>, rowsTotal: number, cols: number, matRows: number, causal: boolean): Float32Array {
  const out = new Float32Array(rowsTotal * cols);
  for (let row = 0; row < rowsTotal; row++) {
    const r = row % matRows;
    const limit = causal ? Math.max(0, Math.min(cols, r + cols - matRows + 1)) : cols;
    let max = -Infinity;
    for (let c = 0; c < limit; c++) max = Math.max(max, x[row * cols + c] ?? 0);
    if (max === -Infinity) continue;
    let sum = 0;
    for (let c = 0; c < limit; c++) sum += Math.exp((x[row * cols + c] ?? 0) - max);
    for (let c = 0; c < limit; c++) out[row * cols + c] = Math.exp((x[row * cols + c] ?? 0) - max) / sum;
  }
  return out;
}

/** RMSNorm over rows of n. */
export function refRmsNorm(x: ArrayLike<number>, n: number, weight: ArrayLike<number> | undefined, eps: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let row = 0; row * n < x.length; row++) {
    let ss = 0;
    for (let c = 0; c < n; c++) ss += (x[row * n + c] ?? 0) ** 2;
    const inv = 1 / Math.sqrt(ss / n + eps);
    for (let c = 0; c < n; c++) out[row * n + c] = (x[row * n + c] ?? 0) * inv * (weight?.[c] ?? 1);
  }
  return out;
}

/** RoPE on [seq, heads, d]. */
export function refRope(x: ArrayLike<number>, seq: number, heads: number, d: number, offset: number, base: number, neox: boolean): Float32Array {
  const out = Float32Array.from({ length: seq * heads * d }, (_, i) => x[i] ?? 0);
  const half = d / 2;
  for (let s = 0; s < seq; s++) {
    for (let h = 0; h < heads; h++) {
      const row = (s * heads + h) * d;
      for (let i = 0; i < half; i++) {
        const angle = (offset + s) * base ** ((-2 * i) / d);
        const [i0, i1] = neox ? [row + i, row + i + half] : [row + 2 * i, row + 2 * i + 1];
        const x0 = x[i0] ?? 0;
        const x1 = x[i1] ?? 0;
        out[i0] = x0 * Math.cos(angle) - x1 * Math.sin(angle);
        out[i1] = x0 * Math.sin(angle) + x1 * Math.cos(angle);
      }
    }
  }
  return out;
}

/** Attention q [sq, h, d], k/v [sk, hkv, d]. */
export function refAttention(
  q: ArrayLike<number>,
  k: ArrayLike<number>,
  v: ArrayLike<number>,
  dims: { sq: number; sk: number; heads: number; kvHeads: number; d: number },
  causal: boolean,
  scale: number,
): Float32Array {
  const { sq, sk, heads, kvHeads, d } = dims;
  const out = new Float32Array(sq * heads * d);
  for (let i = 0; i < sq; i++) {
    for (let h = 0; h < heads; h++) {
      const g = Math.floor(h / (heads / kvHeads));
      const end = causal ? Math.min(sk, sk - sq + i + 1) : sk;
      const scores: number[] = [];
      for (let j = 0; j < end; j++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += (q[(i * heads + h) * d + c] ?? 0) * (k[(j * kvHeads + g) * d + c] ?? 0);
        scores.push(s * scale);
      }
      if (scores.length === 0) continue;
      const max = Math.max(...scores);
      const p = scores.map((s) => Math.exp(s - max));
      const sum = p.reduce((x, y) => x + y, 0);
      for (let c = 0; c < d; c++) {
        let acc = 0;
        for (let j = 0; j < end; j++) acc += (p[j] ?? 0) * (v[(j * kvHeads + g) * d + c] ?? 0);
        out[(i * heads + h) * d + c] = acc / sum;
      }
    }
  }
  return out;
}

/** Cosine similarity [nq, dim] x [nt, dim]; zero vectors score 0. */
export function refCosine(queries: ArrayLike<number>, targets: ArrayLike<number>, nq: number, nt: number, dim: number): Float32Array {
  const out = new Float32Array(nq * nt);
  for (let a = 0; a < nq; a++) {
    for (let b = 0; b < nt; b++) {
      let dot = 0;
      let qq = 0;
      let tt = 0;
      for (let c = 0; c < dim; c++) {
        const x = queries[a * dim + c] ?? 0;
        const y = targets[b * dim + c] ?? 0;
        dot += x * y;
        qq += x * x;
        tt += y * y;
      }
      out[a * nt + b] = qq === 0 || tt === 0 ? 0 : dot / Math.sqrt(qq * tt);
    }
  }
  return out;
}

/** Top k per row: descending, ties to lower index, NaN below -inf. */
export function refTopK(x: ArrayLike<number>, rows: number, n: number, k: number): { values: Float32Array; indices: Int32Array } {
  const values = new Float32Array(rows * k);
  const indices = new Int32Array(rows * k);
  const rank = (v: number): number => (Number.isNaN(v) ? -Infinity : v);
  for (let r = 0; r < rows; r++) {
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((i, j) => {
      const a = x[r * n + i] ?? 0;
      const b = x[r * n + j] ?? 0;
      if (Number.isNaN(a) !== Number.isNaN(b)) return Number.isNaN(a) ? 1 : -1;
      if (rank(a) !== rank(b)) return rank(b) - rank(a) > 0 ? 1 : -1;
      return i - j;
    });
    for (let t = 0; t < k; t++) {
      const idx = order[t] ?? 0;
      values[r * k + t] = x[r * n + idx] ?? 0;
      indices[r * k + t] = idx;
    }
  }
  return { values, indices };
}

/** Spreading activation over CSR. */
export function refSpread(
  rowPtr: ArrayLike<number>,
  colIdx: ArrayLike<number>,
  weights: ArrayLike<number>,
  initial: ArrayLike<number>,
  decay: number,
  threshold: number,
  iterations: number,
): Float32Array {
  let a = Float64Array.from(initial);
  for (let it = 0; it < iterations; it++) {
    const next = Float64Array.from(a);
    for (let i = 0; i < a.length; i++) {
      if (!((a[i] ?? 0) >= threshold)) continue;
      for (let e = rowPtr[i] ?? 0; e < (rowPtr[i + 1] ?? 0); e++) {
        const j = colIdx[e] ?? 0;
        next[j] = (next[j] ?? 0) + decay * (weights[e] ?? 0) * (a[i] ?? 0);
      }
    }
    a = next;
  }
  return Float32Array.from(a);
}
