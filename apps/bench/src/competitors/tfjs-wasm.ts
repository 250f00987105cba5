// @tensorflow/tfjs-backend-wasm (XNNPACK), as shipped. Under Node it loads tfjs-backend-wasm-simd.wasm on ONE thread:
// its WASM_HAS_MULTITHREAD_SUPPORT flag is false whenever IS_NODE (tfjs issue #3830), and forcing the flag on fails
// to start (its pthread workers are created from blob: URLs, which Node's worker_threads cannot load; tried here,
// tfjs 4.22: "all backend initializations failed"). Two threads would need a patched tfjs; not done, so the
// 2-thread comparison has no tfjs column.
import path from 'node:path';
import { createRequire } from 'node:module';
import { normalizedQuery, normalizedRows, type CosineRunner, type MatmulRunner } from './runner.ts';

const require = createRequire(import.meta.url);

/** Why tfjs-backend-wasm runs one thread here. */
export const TFJS_THREADS_NOTE =
  'tfjs-backend-wasm: 1 thread only: under Node its multithread flag is off (tfjs issue #3830) and forcing it fails (pthread workers from blob: URLs); 2 threads would need a patched tfjs';

type Tf = typeof import('@tensorflow/tfjs-core');

let loaded: Promise<Tf> | undefined;

/** tfjs-core with the wasm backend selected (once per process). */
function tfjsOnWasm(): Promise<Tf> {
  loaded ??= (async () => {
    const tf = await import('@tensorflow/tfjs-core');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs could not start its wasm backend');
    await tf.ready();
    return tf;
  })();
  return loaded;
}

/** f32 matmul: tf.matMul + data(). */
export async function tfjsMatmul(): Promise<MatmulRunner> {
  const tf = await tfjsOnWasm();
  const kept: Array<{ dispose(): void }> = [];
  return {
    name: 'tfjs-backend-wasm',
    threads: 1,
    prepare: async (n, a, b) => {
      const ta = tf.tensor2d(a, [n, n]);
      const tb = tf.tensor2d(b, [n, n]);
      kept.push(ta, tb);
      return async () => {
        const c = tf.matMul(ta, tb);
        const out = await c.data();
        c.dispose();
        return out instanceof Float32Array ? out : new Float32Array(0);
      };
    },
    close: async () => {
      for (const t of kept.splice(0)) t.dispose();
    },
  };
}

/** Cosine on targets normalised beforehand: one mat-vec, targets [count, dim] x query [dim, 1], + data(). */
export async function tfjsCosine(): Promise<CosineRunner> {
  const tf = await tfjsOnWasm();
  const kept: Array<{ dispose(): void }> = [];
  return {
    name: 'tfjs-backend-wasm',
    threads: 1,
    note: 'targets and query normalised beforehand (not timed); scores = tf.matMul(targets, query)',
    prepare: async (query, targets, dim) => {
      const tt = tf.tensor2d(normalizedRows(targets, dim), [targets.length / dim, dim]);
      const tq = tf.tensor2d(normalizedQuery(query), [dim, 1]);
      kept.push(tt, tq);
      return async () => {
        const scores = tf.matMul(tt, tq);
        const out = await scores.data();
        scores.dispose();
        return out instanceof Float32Array ? out : new Float32Array(0);
      };
    },
    close: async () => {
      for (const t of kept.splice(0)) t.dispose();
    },
  };
}
