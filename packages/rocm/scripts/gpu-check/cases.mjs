// The correctness cases: every native kernel against references.mjs, on random inputs (fixed seeds), edge shapes
// (non-multiples of the tiles, K = 0, single rows), and the special values the op semantics name
// (-inf rows in softmax, ties and NaN in topK, zero vectors in cosine). Grouped by kernel family.
import * as ref from './references.mjs';
import { floatToHalf, halfToFloat, randomBlocks, randomHalf, rng, uniform } from './util.mjs';

const F32_TOL = 1e-5;
const F16_TOL = 2e-3;

/** f32 output of `count` values, compared with tolerance. */
const f32Out = (count, tol = F32_TOL) => ({ kind: 'f32', bytes: count * 4, tol });
const f16Out = (count) => ({ kind: 'f16', bytes: count * 2, tol: F16_TOL });
const i32Out = (count) => ({ kind: 'i32', bytes: count * 4, tol: 0 });
const roundHalf = (values) => Float64Array.from(values, (v) => halfToFloat(floatToHalf(v)));

function matmulCases(quick) {
  const shapes = [[1, 1, 1], [7, 13, 5], [64, 3, 100], [129, 65, 257], [33, 33, 33], [3, 0, 4], [128, 128, 128], ...(quick ? [] : [[300, 511, 257], [256, 512, 384]])];
  const cases = [];
  for (const [m, k, n] of shapes)
    for (const variant of [0, 1]) {
      const a = uniform(m * k, m * 1000 + k);
      const b = uniform(k * n, n * 1000 + k + 1);
      cases.push({ name: `matmul_f32 ${m}x${k}x${n} v${variant}`, kernel: 'matmul_f32', inputs: [a, b], params: { m, k, n, variant }, outputs: [f32Out(m * n)], expect: () => [ref.matmul(a, b, m, k, n)] });
    }
  const [m, k, n] = [17, 33, 9];
  const a = randomHalf(m * k, 5);
  const b = randomHalf(k * n, 6);
  cases.push({ name: `matmul_f16 ${m}x${k}x${n}`, kernel: 'matmul_f16', inputs: [a.bits, b.bits], params: { m, k, n }, outputs: [f16Out(m * n)], expect: () => [roundHalf(ref.matmul(a.values, b.values, m, k, n))] });
  return cases;
}

function quantizedCases(quick) {
  const cases = [];
  // M = 1 with K a multiple of 128 takes the streamed Q4_0 kernel (variant 6): one partial chunk (k 384), a full
  // and a partial chunk (k 4224), the largest K of 8-warp blocks (7424) and of 4-warp ones (9600), one past it
  // (9728: the direct kernel), more rows than the grid has warps (n 2100).
  const shapes = [[1, 1, 32], [1, 37, 96], [1, 37, 128], [3, 37, 4096], [5, 16, 1056], [9, 20, 96], [2, 300, 160],
    ...(quick ? [] : [[1, 129, 4096], [1, 5, 384], [1, 77, 4224], [1, 20, 7424], [1, 20, 9600], [1, 20, 9728], [1, 2100, 256], [4, 64, 11008], [12, 40, 512]])];
  for (const format of ['q8_0', 'q4_0'])
    for (const [m, n, k] of shapes)
      for (const variant of [0, 1, 2, 3, 4, 5, 6]) {
        const x = uniform(m * k, m + n + k);
        const w = randomBlocks(format, n * k, n * 7 + k);
        cases.push({
          name: `quantized_matmul_${format} m${m} n${n} k${k} v${variant}`,
          kernel: `quantized_matmul_${format}`,
          inputs: [x, w.bytes],
          params: { m, n, k, variant },
          outputs: [f32Out(m * n)],
          expect: () => [ref.matmulWeightsByRow(x, w.values, m, k, n)],
        });
      }
  return cases;
}

/**
 * The opt-in int8-activation path (q8Activations: 1): against the reference over x as that path rounds it
 * (f32 tolerance), a NaN activation (NaN outputs), and M = 9 (the f32 path, exact x).
 */
function quantizedQ8ActivationCases(quick) {
  const cases = [];
  const shapes = [[1, 1, 32], [1, 37, 96], [3, 37, 4096], [5, 16, 1056], [2, 300, 160], ...(quick ? [] : [[1, 129, 4096], [4, 64, 11008]])];
  for (const format of ['q8_0', 'q4_0']) {
    for (const [m, n, k] of shapes)
      for (const variant of [0, 1, 2, 3]) {
        const x = uniform(m * k, m + n + k + 1);
        const w = randomBlocks(format, n * k, n * 7 + k);
        cases.push({
          name: `quantized_matmul_${format} q8 activations m${m} n${n} k${k} v${variant}`,
          kernel: `quantized_matmul_${format}`,
          inputs: [x, w.bytes],
          params: { m, n, k, variant, q8Activations: 1 },
          outputs: [f32Out(m * n)],
          expect: () => [ref.matmulWeightsByRow(ref.roundActivationsQ8(x), w.values, m, k, n)],
        });
      }
    const [m, n, k] = [2, 5, 64];
    const x = uniform(m * k, 99);
    x[70] = Number.NaN;
    const w = randomBlocks(format, n * k, 98);
    const rounded = ref.roundActivationsQ8(x);
    cases.push({ name: `quantized_matmul_${format} q8 activations, a NaN in row 1`, kernel: `quantized_matmul_${format}`, inputs: [x, w.bytes], params: { m, n, k, q8Activations: 1 }, outputs: [f32Out(m * n)], expect: () => [ref.matmulWeightsByRow(rounded, w.values, m, k, n)] });
    const x9 = uniform(9 * 96, 97);
    const w9 = randomBlocks(format, 20 * 96, 96);
    cases.push({ name: `quantized_matmul_${format} q8 activations m9 (f32 path)`, kernel: `quantized_matmul_${format}`, inputs: [x9, w9.bytes], params: { m: 9, n: 20, k: 96, q8Activations: 1 }, outputs: [f32Out(9 * 20)], expect: () => [ref.matmulWeightsByRow(x9, w9.values, 9, 96, 20)] });
  }
  return cases;
}

function dequantizeCases() {
  const cases = [];
  for (const format of ['q8_0', 'q4_0']) {
    const count = 32 * 77;
    const blocks = randomBlocks(format, count, 11);
    cases.push({ name: `dequantize_${format} ${count}`, kernel: `dequantize_${format}`, inputs: [blocks.bytes], params: { count }, outputs: [f32Out(count, 0)], expect: () => [blocks.values] });
  }
  const h = randomHalf(1001, 12);
  h.bits[0] = 0x7c00; // +inf
  h.bits[1] = 0xfc00; // -inf
  h.bits[2] = 0x0001; // smallest subnormal
  const values = Float64Array.from(h.bits, halfToFloat);
  cases.push({ name: 'dequantize_f16 1001 (inf, subnormal)', kernel: 'dequantize_f16', inputs: [h.bits], params: { count: 1001 }, outputs: [f32Out(1001, 0)], expect: () => [values] });
  return cases;
}

function elementwiseCases() {
  const cases = [];
  const n = 4099;
  const a = uniform(n * 3, 21);
  const b = uniform(n * 3, 22);
  const row = uniform(n, 23);
  for (const op of ['add', 'mul']) {
    const f = op === 'add' ? (x, y) => x + y : (x, y) => x * y;
    cases.push({ name: `${op}_f32 same shape`, kernel: `${op}_f32`, inputs: [a, b], params: { count: 3 * n, bCount: 3 * n }, outputs: [f32Out(3 * n)], expect: () => [Float64Array.from(a, (v, i) => f(v, b[i]))] });
    cases.push({ name: `${op}_f32 broadcast row`, kernel: `${op}_f32`, inputs: [a, row], params: { count: 3 * n, bCount: n }, outputs: [f32Out(3 * n)], expect: () => [Float64Array.from(a, (v, i) => f(v, row[i % n]))] });
    const ha = randomHalf(3 * 50, 24);
    const hb = randomHalf(50, 25);
    cases.push({
      name: `${op}_f16 broadcast`,
      kernel: `${op}_f16`,
      inputs: [ha.bits, hb.bits],
      params: { count: 150, bCount: 50 },
      outputs: [f16Out(150)],
      expect: () => [roundHalf(Array.from(ha.values, (v, i) => Math.fround(f(v, hb.values[i % 50]))))],
    });
  }
  cases.push({ name: 'scale_f32', kernel: 'scale_f32', inputs: [a], params: { count: 3 * n, factor: -0.75 }, outputs: [f32Out(3 * n)], expect: () => [Float64Array.from(a, (v) => v * -0.75)] });
  const hs = randomHalf(99, 26);
  cases.push({ name: 'scale_f16', kernel: 'scale_f16', inputs: [hs.bits], params: { count: 99, factor: 3 }, outputs: [f16Out(99)], expect: () => [roundHalf(Array.from(hs.values, (v) => Math.fround(v * 3)))] });
  const big = uniform(n, 27, -30, 30);
  cases.push({ name: 'silu_f32', kernel: 'silu_f32', inputs: [big], params: { count: n }, outputs: [f32Out(n)], expect: () => [Float64Array.from(big, (v) => v / (1 + Math.exp(-v)))] });
  cases.push({ name: 'swiglu_f32', kernel: 'swiglu_f32', inputs: [big, row], params: { count: n }, outputs: [f32Out(n)], expect: () => [Float64Array.from(big, (v, i) => (v / (1 + Math.exp(-v))) * row[i])] });
  cases.push({ name: 'add_f32 empty', kernel: 'add_f32', inputs: [new Float32Array(0), new Float32Array(0)], params: { count: 0, bCount: 0 }, outputs: [f32Out(0)], expect: () => [new Float64Array(0)] });
  return cases;
}

function softmaxCases() {
  const cases = [];
  const rows = 2 * 5;
  const cols = 7;
  const x = uniform(rows * cols, 31, -5, 5);
  for (let c = 0; c < cols; c++) x[3 * cols + c] = -Infinity; // a row entirely -inf
  x[4 * cols + 2] = -Infinity;
  cases.push({ name: 'softmax_f32 10x7 (-inf row)', kernel: 'softmax_f32', inputs: [x], params: { rows, cols, causalRows: 0 }, outputs: [f32Out(rows * cols)], expect: () => [ref.softmax(x, rows, cols, 0)] });
  cases.push({ name: 'softmax_f32 causal [2,5,7]', kernel: 'softmax_f32', inputs: [x], params: { rows, cols, causalRows: 5 }, outputs: [f32Out(rows * cols)], expect: () => [ref.softmax(x, rows, cols, 5)] });
  const tall = uniform(9 * 4, 32);
  cases.push({ name: 'softmax_f32 causal rows > cols [9,4]', kernel: 'softmax_f32', inputs: [tall], params: { rows: 9, cols: 4, causalRows: 9 }, outputs: [f32Out(36)], expect: () => [ref.softmax(tall, 9, 4, 9)] });
  const wide = uniform(3 * 5000, 33, -20, 20);
  cases.push({ name: 'softmax_f32 3x5000', kernel: 'softmax_f32', inputs: [wide], params: { rows: 3, cols: 5000, causalRows: 0 }, outputs: [f32Out(15000)], expect: () => [ref.softmax(wide, 3, 5000, 0)] });
  return cases;
}

function rmsNormCases() {
  const x = uniform(6 * 1000, 41, -3, 3);
  const w = uniform(1000, 42);
  return [
    { name: 'rms_norm_f32 weighted', kernel: 'rms_norm_f32', inputs: [x, w], params: { rows: 6, n: 1000, eps: 1e-5 }, outputs: [f32Out(6000)], expect: () => [ref.rmsNorm(x, w, 6, 1000, 1e-5)] },
    { name: 'rms_norm_f32 no weight', kernel: 'rms_norm_f32', inputs: [x], params: { rows: 12, n: 500, eps: 1e-6 }, outputs: [f32Out(6000)], expect: () => [ref.rmsNorm(x, undefined, 12, 500, 1e-6)] },
  ];
}

function ropeCases() {
  const [seq, heads, d] = [5, 3, 64];
  const x = uniform(seq * heads * d, 51);
  return [false, true].map((neox) => ({
    name: `rope_f32 ${neox ? 'neox' : 'interleaved'} offset 1000`,
    kernel: 'rope_f32',
    inputs: [x],
    params: { seq, heads, headDim: d, positionOffset: 1000, base: 10000, neox: neox ? 1 : 0 },
    outputs: [f32Out(x.length)],
    expect: () => [ref.rope(x, seq, heads, d, 1000, 10000, neox)],
  }));
}

function attentionCases(quick) {
  const shapes = [
    // sq, sk, heads, kvHeads, d, causal
    [3, 7, 4, 2, 16, true],
    [3, 7, 4, 2, 16, false],
    [1, 300, 8, 8, 128, true],
    [2, 50, 4, 1, 100, true],
    [16, 16, 2, 2, 64, true],
    [1, 1, 1, 1, 8, false],
    ...(quick ? [] : [[1, 4096, 32, 8, 128, true], [64, 64, 8, 4, 64, true], [5, 9, 2, 2, 256, false]]),
  ];
  return shapes.map(([sq, sk, heads, kvHeads, d, causal], i) => {
    const q = uniform(sq * heads * d, 60 + i);
    const k = uniform(sk * kvHeads * d, 70 + i);
    const v = uniform(sk * kvHeads * d, 80 + i);
    const scale = 1 / Math.sqrt(d);
    return {
      name: `attention_f32 sq${sq} sk${sk} h${heads}/${kvHeads} d${d}${causal ? ' causal' : ''}`,
      kernel: 'attention_f32',
      inputs: [q, k, v],
      params: { sq, sk, heads, kvHeads, headDim: d, causal: causal ? 1 : 0, scale },
      outputs: [f32Out(q.length)],
      expect: () => [ref.attention(q, k, v, sq, sk, heads, kvHeads, d, causal, scale)],
    };
  });
}

function cosineCases(quick) {
  const shapes = [[1, 1000, 768], [3, 1000, 768], [9, 500, 768], [20, 300, 64], [2, 333, 13], [1, 10, 4], ...(quick ? [] : [[16, 5000, 768], [40, 2000, 384]])];
  return shapes.map(([nq, nt, d], i) => {
    const queries = uniform(nq * d, 90 + i);
    const targets = uniform(nt * d, 100 + i);
    targets.fill(0, 0, d); // target 0 is a zero vector
    if (nq > 1) queries.fill(0, d, 2 * d); // query 1 too
    return {
      name: `cosine_similarity_f32 q${nq} t${nt} d${d}`,
      kernel: 'cosine_similarity_f32',
      inputs: [queries, targets],
      params: { queries: nq, targets: nt, dim: d },
      outputs: [f32Out(nq * nt)],
      expect: () => [ref.cosine(queries, targets, nq, nt, d)],
    };
  });
}

function topKCases(quick) {
  const cases = [];
  const add = (name, x, rows, n, k) =>
    cases.push({
      name: `top_k_f32 ${name} rows${rows} n${n} k${k}`,
      kernel: 'top_k_f32',
      inputs: [x],
      params: { rows, n, k },
      outputs: [f32Out(rows * k, 0), i32Out(rows * k)],
      expect: () => {
        const r = ref.topK(x, rows, n, k);
        return [r.values, r.indices];
      },
    });
  const special = uniform(3 * 1000, 111);
  const r = rng(112);
  for (let i = 0; i < special.length; i++) {
    const u = r();
    if (u < 0.05) special[i] = NaN;
    else if (u < 0.1) special[i] = -Infinity;
    else if (u < 0.3) special[i] = Math.round(special[i] * 4) / 4; // many ties
  }
  special[5] = -0;
  special[6] = 0;
  add('ties/NaN/-inf', special, 3, 1000, 10);
  add('k = n (NaN last)', special, 3, 1000, 1000);
  add('all equal', new Float32Array(3000).fill(0.5), 1, 3000, 50);
  add('n = k = 5', Float32Array.from([3, NaN, -Infinity, 3, 1]), 1, 5, 5);
  const many = uniform(70000, 113, 0, 1);
  add('large row', many, 1, 70000, 100);
  add('narrow values', Float32Array.from(many, (v) => 1 + v * 1e-6), 1, 70000, 4096);
  if (!quick) add('1M row', uniform(1 << 20, 114), 1, 1 << 20, 16);
  return cases;
}

function spreadCases() {
  const nodes = 1000;
  const r = rng(121);
  const rowPtr = new Uint32Array(nodes + 1);
  const cols = [];
  const weights = [];
  for (let i = 0; i < nodes; i++) {
    const deg = r() < 0.02 ? 200 : Math.floor(r() * 8); // a few hubs
    for (let e = 0; e < deg; e++) {
      cols.push(Math.floor(r() * nodes));
      weights.push(r());
    }
    rowPtr[i + 1] = cols.length;
  }
  const colIdx = Uint32Array.from(cols);
  const w = Float32Array.from(weights);
  const initial = uniform(nodes, 122, 0, 1);
  return [1, 3].map((iterations) => ({
    name: `spread_activation nodes${nodes} edges${colIdx.length} it${iterations}`,
    kernel: 'spread_activation',
    inputs: [rowPtr, colIdx, w, initial],
    params: { nodes, edges: colIdx.length, decay: 0.5, threshold: 0.3, iterations },
    outputs: [f32Out(nodes)],
    expect: () => [ref.spreadActivation(rowPtr, colIdx, w, initial, 0.5, 0.3, iterations)],
  }));
}

/** Every group of cases, by name. */
export function caseGroups(quick) {
  return {
    matmul: () => matmulCases(quick),
    quantized: () => [...quantizedCases(quick), ...quantizedQ8ActivationCases(quick)],
    dequantize: () => dequantizeCases(),
    elementwise: () => elementwiseCases(),
    softmax: () => softmaxCases(),
    rms_norm: () => rmsNormCases(),
    rope: () => ropeCases(),
    attention: () => attentionCases(quick),
    cosine: () => cosineCases(quick),
    top_k: () => topKCases(quick),
    spread: () => spreadCases(),
  };
}
