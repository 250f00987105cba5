// Straightforward float64 versions of every op, written from the comments in core's ops.ts (the spec).
import { floatToHalf, halfToFloat, Q4_0_BLOCK_BYTES, Q8_0_BLOCK_BYTES, QUANT_BLOCK } from '@tandem/core';

/** a [m, k] x b [k, n]. */
export function refMatmul(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const x = a[i * k + p] ?? 0;
      for (let j = 0; j < n; j++) out[i * n + j] = (out[i * n + j] ?? 0) + x * (b[p * n + j] ?? 0);
    }
  }
  return out;
}

/** x [m, k] x w[n, k]^T (w already dequantized). */
export function refMatmulTransposed(x: ArrayLike<number>, w: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += (x[i * k + p] ?? 0) * (w[j * k + p] ?? 0);
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

/** q8_0 / q4_0 bytes -> `count` values. */
export function refDequantize(bytes: Uint8Array, dtype: 'q8_0' | 'q4_0', count: number): Float64Array {
  const out = new Float64Array(count);
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

/** f32 values -> f16 bit patterns. */
export function toHalfBits(values: ArrayLike<number>): Uint16Array {
  return Uint16Array.from(Array.from(values, (v) => floatToHalf(v)));
}

/** f16 bit patterns -> numbers. */
export function fromHalfBits(bits: ArrayLike<number>): Float64Array {
  return Float64Array.from(Array.from(bits, (h) => halfToFloat(h)));
}

/** out[i] = fn(a[i], b[i % b.length]). */
export function refBinary(a: ArrayLike<number>, b: ArrayLike<number>, fn: (x: number, y: number) => number): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = fn(a[i] ?? 0, b[i % b.length] ?? 0);
  return out;
}

/** x * sigmoid(x). */
export function refSilu(x: number): number {
  return x / (1 + Math.exp(-x));
}

/** Row-wise softmax of [..., rows, cols] with the optional causal mask. */
export function refSoftmax(x: ArrayLike<number>, rows: number, cols: number, causal: boolean): Float64Array {
  const out = new Float64Array(x.length);
  const total = cols === 0 ? 0 : x.length / cols;
  for (let g = 0; g < total; g++) {
    const r = g % rows;
    const visible = causal ? Math.min(cols, r + cols - rows + 1) : cols;
    let max = -Infinity;
    for (let c = 0; c < visible; c++) max = Math.max(max, x[g * cols + c] ?? 0);
    if (visible <= 0 || max === -Infinity) continue;
    let sum = 0;
    for (let c = 0; c < visible; c++) sum += Math.exp((x[g * cols + c] ?? 0) - max);
    for (let c = 0; c < visible; c++) out[g * cols + c] = Math.exp((x[g * cols + c] ?? 0) - max) / sum;
  }
  return out;
}

/** RMSNorm over rows of n. */
export function refRmsNorm(x: ArrayLike<number>, n: number, weight: ArrayLike<number> | undefined, eps: number): Float64Array {
  const out = new Float64Array(x.length);
  for (let r = 0; r < x.length / n; r++) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (x[r * n + i] ?? 0) ** 2;
    const inv = 1 / Math.sqrt(ss / n + eps);
    for (let i = 0; i < n; i++) out[r * n + i] = (x[r * n + i] ?? 0) * inv * (weight === undefined ? 1 : (weight[i] ?? 0));
  }
  return out;
}

/** RoPE on [seq, heads, dim]. */
export function refRope(x: ArrayLike<number>, seq: number, heads: number, dim: number, offset: number, base: number, mode: 'interleaved' | 'neox'): Float64Array {
  const out = new Float64Array(x.length);
  const half = dim / 2;
  for (let s = 0; s < seq; s++) {
    for (let h = 0; h < heads; h++) {
      const row = (s * heads + h) * dim;
      for (let i = 0; i < half; i++) {
        const angle = (offset + s) * base ** ((-2 * i) / dim);
        const [c, sn] = [Math.cos(angle), Math.sin(angle)];
        const [ia, ib] = mode === 'neox' ? [i, i + half] : [2 * i, 2 * i + 1];
        const [a, b] = [x[row + ia] ?? 0, x[row + ib] ?? 0];
        out[row + ia] = a * c - b * sn;
        out[row + ib] = b * c + a * sn;
      }
    }
  }
  return out;
}

/** Grouped-query attention, q [sq, h, d], k/v [sk, hkv, d]. */
export function refAttention(
  q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>,
  sq: number, sk: number, heads: number, kvHeads: number, dim: number, causal: boolean, scale: number,
): Float64Array {
  const out = new Float64Array(sq * heads * dim);
  const group = heads / kvHeads;
  for (let i = 0; i < sq; i++) {
    const visible = causal ? Math.min(sk, sk - sq + i + 1) : sk;
    for (let h = 0; h < heads; h++) {
      const kvh = Math.floor(h / group);
      const scores: number[] = [];
      for (let j = 0; j < visible; j++) {
        let s = 0;
        for (let d = 0; d < dim; d++) s += (q[(i * heads + h) * dim + d] ?? 0) * (k[(j * kvHeads + kvh) * dim + d] ?? 0);
        scores.push(s * scale);
      }
      if (visible <= 0) continue;
      const max = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - max));
      const sum = e.reduce((x, y) => x + y, 0);
      for (let j = 0; j < visible; j++) {
        for (let d = 0; d < dim; d++) {
          const at = (i * heads + h) * dim + d;
          out[at] = (out[at] ?? 0) + ((e[j] ?? 0) / sum) * (v[(j * kvHeads + kvh) * dim + d] ?? 0);
        }
      }
    }
  }
  return out;
}

/** Cosine similarity [nq, d] x [nt, d] -> [nq, nt]; zero vectors score 0. */
export function refCosine(queries: ArrayLike<number>, targets: ArrayLike<number>, nq: number, nt: number, dim: number): Float64Array {
  const out = new Float64Array(nq * nt);
  for (let a = 0; a < nq; a++) {
    for (let b = 0; b < nt; b++) {
      let [dot, qq, tt] = [0, 0, 0];
      for (let d = 0; d < dim; d++) {
        const [x, y] = [queries[a * dim + d] ?? 0, targets[b * dim + d] ?? 0];
        dot += x * y;
        qq += x * x;
        tt += y * y;
      }
      out[a * nt + b] = qq === 0 || tt === 0 ? 0 : dot / Math.sqrt(qq * tt);
    }
  }
  return out;
}

/** Top k of each row: descending, lower index first on ties, NaN below -inf. */
export function refTopK(x: ArrayLike<number>, rows: number, n: number, k: number): { values: number[]; indices: number[] } {
  const values: number[] = [];
  const indices: number[] = [];
  for (let r = 0; r < rows; r++) {
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((i, j) => {
      const [a, b] = [x[r * n + i] ?? 0, x[r * n + j] ?? 0];
      const [na, nb] = [Number.isNaN(a), Number.isNaN(b)];
      if (na !== nb) return na ? 1 : -1;
      if (!na && a !== b) return b > a ? 1 : -1;
      return i - j;
    });
    for (const i of order.slice(0, k)) {
      values.push(x[r * n + i] ?? 0);
      indices.push(i);
    }
  }
  return { values, indices };
}

/** Spreading activation over CSR, `iterations` hops. */
export function refSpread(
  rowPtr: ArrayLike<number>, colIdx: ArrayLike<number>, weights: ArrayLike<number>, initial: ArrayLike<number>,
  decay: number, threshold: number, iterations: number,
): Float64Array {
  const nodes = initial.length;
  let a = Float64Array.from(initial);
  for (let it = 0; it < iterations; it++) {
    const sums = new Float64Array(nodes);
    for (let i = 0; i < nodes; i++) {
      if (!((a[i] ?? 0) >= threshold)) continue;
      for (let e = rowPtr[i] ?? 0; e < (rowPtr[i + 1] ?? 0); e++) {
        const j = colIdx[e] ?? 0;
        sums[j] = (sums[j] ?? 0) + (weights[e] ?? 0) * (a[i] ?? 0);
      }
    }
    a = a.map((v, j) => v + decay * (sums[j] ?? 0));
  }
  return a;
}
