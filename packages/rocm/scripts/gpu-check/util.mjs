// Helpers of the GPU check: a seeded generator, f16 and ggml block encodings, and result comparison.
// Plain Node (no npm packages): this folder travels to the GPU machine without node_modules.

/** mulberry32: a seeded uniform generator in [0, 1). */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Float32Array of n uniform values in [lo, hi). */
export function uniform(n, seed, lo = -1, hi = 1) {
  const r = rng(seed);
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = lo + (hi - lo) * r();
  return a;
}

/** Fills a large Float32Array fast (xorshift32, values in [-1, 1)); for benchmarks only. */
export function fastFill(a, seed) {
  let x = seed >>> 0 || 1;
  for (let i = 0; i < a.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    a[i] = (x >>> 0) * 4.656612873077393e-10 - 1;
  }
  return a;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** binary16 bits -> number (as packages/core/src/half.ts). */
export function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** number -> binary16 bits, round to nearest even (as packages/core/src/half.ts). */
export function floatToHalf(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let m = mant >>> shift;
    if (rest > half || (rest === half && (m & 1) === 1)) m += 1;
    return sign | m;
  }
  let m = mant >>> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (m & 1) === 1)) {
    m += 1;
    if (m === 0x400) {
      m = 0;
      e += 1;
      if (e >= 31) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | m;
}

/** f16 bits of n random values in [-1, 1), and their exact values. */
export function randomHalf(n, seed) {
  const r = rng(seed);
  const bits = new Uint16Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    bits[i] = floatToHalf(2 * r() - 1);
    values[i] = halfToFloat(bits[i]);
  }
  return { bits, values };
}

/**
 * Random ggml blocks for `count` values (a multiple of 32): Q8_0 = f16 d + 32 int8, Q4_0 = f16 d + 16 bytes with
 * value j in the low nibble of byte j and j + 16 in the high nibble, minus 8. Returns the bytes and the values.
 */
export function randomBlocks(format, count, seed) {
  const r = rng(seed);
  const blockBytes = format === 'q8_0' ? 34 : 18;
  const blocks = count / 32;
  const bytes = new Uint8Array(blocks * blockBytes);
  const values = new Float64Array(count);
  for (let b = 0; b < blocks; b++) {
    const dBits = floatToHalf(0.001 + 0.05 * r());
    const d = halfToFloat(dBits);
    const o = b * blockBytes;
    bytes[o] = dBits & 0xff;
    bytes[o + 1] = dBits >> 8;
    if (format === 'q8_0') {
      for (let j = 0; j < 32; j++) {
        const q = Math.floor(r() * 256) - 128;
        bytes[o + 2 + j] = q & 0xff;
        values[b * 32 + j] = d * q;
      }
    } else {
      for (let j = 0; j < 16; j++) {
        const lo = Math.floor(r() * 16);
        const hi = Math.floor(r() * 16);
        bytes[o + 2 + j] = lo | (hi << 4);
        values[b * 32 + j] = d * (lo - 8);
        values[b * 32 + j + 16] = d * (hi - 8);
      }
    }
  }
  return { bytes, values };
}

/** The bytes of a typed array (a view, no copy). */
export function bytesOf(a) {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * Compares got against a float64 reference: relative L2 error, largest absolute error, and the first element
 * whose special value (NaN, +-Infinity) differs or that was left unwritten (NaN poison where a number is due).
 */
export function compare(got, ref) {
  let num = 0;
  let den = 0;
  let maxAbs = 0;
  let firstBad = -1;
  for (let i = 0; i < ref.length; i++) {
    const g = got[i];
    const e = ref[i];
    if (!Number.isFinite(e) || !Number.isFinite(g)) {
      const same = (Number.isNaN(e) && Number.isNaN(g)) || e === g;
      if (!same && firstBad < 0) firstBad = i;
      continue;
    }
    const d = g - e;
    num += d * d;
    den += e * e;
    maxAbs = Math.max(maxAbs, Math.abs(d));
  }
  const relL2 = den === 0 ? Math.sqrt(num) : Math.sqrt(num / den);
  return { relL2, maxAbs, firstBad, length: got.length === ref.length ? ref.length : `got ${got.length}, want ${ref.length}` };
}

/** Median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
