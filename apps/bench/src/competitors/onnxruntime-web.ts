// onnxruntime-web's wasm execution provider (MLAS) on a one-node MatMul model built in code (onnx-matmul-model.ts).
// Its threads work in Node as shipped (env.wasm.numThreads).
import path from 'node:path';
import { createRequire } from 'node:module';
import { matmulModel } from './onnx-matmul-model.ts';
import type { MatmulRunner } from './runner.ts';

const require = createRequire(import.meta.url);

/** f32 matmul: session.run with A and B fed, C read from the result. */
export async function ortMatmul(threads: number): Promise<MatmulRunner> {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.wasmPaths = `${path.dirname(require.resolve('onnxruntime-web'))}/`; // the dist folder, with its .wasm files
  const sessions: Array<{ release(): Promise<void> }> = [];
  return {
    name: 'onnxruntime-web',
    threads,
    prepare: async (n, a, b) => {
      const session = await ort.InferenceSession.create(matmulModel(n, n, n), { executionProviders: ['wasm'] });
      sessions.push(session);
      const feeds = { A: new ort.Tensor('float32', a, [n, n]), B: new ort.Tensor('float32', b, [n, n]) };
      return async () => {
        const result = await session.run(feeds);
        const data = result['C']?.data;
        return data instanceof Float32Array ? data : new Float32Array(0);
      };
    },
    close: async () => {
      for (const s of sessions.splice(0)) await s.release();
    },
  };
}
