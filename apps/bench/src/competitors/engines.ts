// The matmul engines compared with Tandem's WASM backend, each behind one interface: prepare inputs once,
// then time C = A x B with the result back in JS memory (as a caller would use it).
import path from 'node:path';
import { createRequire } from 'node:module';
import { Engine } from '@tandem/core';
import { WasmBackend } from '@tandem/wasm';
import { matmulModel } from './onnx-matmul-model.ts';

/** One engine's matmul, ready to time. */
export interface MatmulRunner {
  /** Engine name for the table. */
  readonly name: string;
  /** Threads it uses. */
  readonly threads: number;
  /** Prepares an n x n problem and returns one timed call (resolves when C is in JS memory). */
  prepare(n: number, a: Float32Array, b: Float32Array): Promise<() => Promise<Float32Array>>;
  /** Releases everything. */
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** Tandem's WASM backend through the engine ({ only: 'wasm' }), inputs resident, result read back. */
export async function tandemRunner(threads: number): Promise<MatmulRunner> {
  const engine = await Engine.create({ backends: [new WasmBackend({ threads })], strategy: { only: 'wasm' } });
  return {
    name: 'tandem-wasm',
    threads,
    prepare: async (n, a, b) => {
      const ta = engine.tensor(a, [n, n]);
      const tb = engine.tensor(b, [n, n]);
      return async () => {
        const c = await engine.matmul(ta, tb);
        const out = await c.read();
        c.dispose();
        return out instanceof Float32Array ? out : new Float32Array(0);
      };
    },
    close: () => engine.dispose(),
  };
}

/** @tensorflow/tfjs-backend-wasm (XNNPACK). Under Node it runs single-threaded (tfjs issue #3830). */
export async function tfjsRunner(): Promise<MatmulRunner> {
  const tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
  await tf.setBackend('wasm');
  await tf.ready();
  return {
    name: 'tfjs-backend-wasm',
    threads: 1,
    prepare: async (n, a, b) => {
      const ta = tf.tensor2d(a, [n, n]);
      const tb = tf.tensor2d(b, [n, n]);
      return async () => {
        const c = tf.matMul(ta, tb);
        const out = await c.data();
        c.dispose();
        return out instanceof Float32Array ? out : new Float32Array(0);
      };
    },
    close: async () => undefined,
  };
}

/** onnxruntime-web's wasm execution provider (MLAS) on a one-node MatMul model. */
export async function ortRunner(threads: number): Promise<MatmulRunner> {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = `${path.dirname(require.resolve('onnxruntime-web'))}/`; // the dist folder, with its .wasm files
  return {
    name: 'onnxruntime-web',
    threads,
    prepare: async (n, a, b) => {
      const session = await ort.InferenceSession.create(matmulModel(n, n, n), { executionProviders: ['wasm'] });
      const feeds = { A: new ort.Tensor('float32', a, [n, n]), B: new ort.Tensor('float32', b, [n, n]) };
      return async () => {
        const result = await session.run(feeds);
        const data = result['C']?.data;
        return data instanceof Float32Array ? data : new Float32Array(0);
      };
    },
    close: async () => undefined,
  };
}

/** Plain JavaScript: i-k-j loops over Float32Arrays. */
export function plainJsRunner(): MatmulRunner {
  return {
    name: 'plain-js',
    threads: 1,
    prepare: async (n, a, b) => async () => {
      const c = new Float32Array(n * n);
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < n; k++) {
          const aik = a[i * n + k] ?? 0;
          const row = k * n;
          const out = i * n;
          for (let j = 0; j < n; j++) c[out + j] = (c[out + j] ?? 0) + aik * (b[row + j] ?? 0);
        }
      }
      return c;
    },
    close: async () => undefined,
  };
}
