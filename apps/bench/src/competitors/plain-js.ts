// Plain JavaScript on Float32Arrays: what a caller writes without an engine.
import { normalizedQuery, normalizedRows, type CosineRunner, type MatmulRunner } from './runner.ts';

function matmulIkj(a: Float32Array, b: Float32Array, n: number): Float32Array {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    const out = i * n;
    for (let k = 0; k < n; k++) {
      const aik = a[out + k] ?? 0;
      const row = k * n;
      for (let j = 0; j < n; j++) c[out + j] = (c[out + j] ?? 0) + aik * (b[row + j] ?? 0);
    }
  }
  return c;
}

function dotRows(targets: Float32Array, query: Float32Array, dim: number): Float32Array {
  const scores = new Float32Array(targets.length / dim);
  for (let t = 0; t < scores.length; t++) {
    let sum = 0;
    const row = t * dim;
    for (let j = 0; j < dim; j++) sum += (targets[row + j] ?? 0) * (query[j] ?? 0);
    scores[t] = sum;
  }
  return scores;
}

/** f32 matmul, i-k-j loops. */
export function plainJsMatmul(): MatmulRunner {
  return {
    name: 'plain-js',
    threads: 1,
    prepare: async (n, a, b) => async () => matmulIkj(a, b, n),
    close: async () => undefined,
  };
}

/** Cosine on targets normalised beforehand: one dot product per target. */
export function plainJsCosine(): CosineRunner {
  return {
    name: 'plain-js',
    threads: 1,
    note: 'targets and query normalised beforehand (not timed); one dot product per target',
    prepare: async (query, targets, dim) => {
      const unitTargets = normalizedRows(targets, dim);
      const unitQuery = normalizedQuery(query);
      return async () => dotRows(unitTargets, unitQuery, dim);
    },
    close: async () => undefined,
  };
}
