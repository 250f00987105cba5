// Tandem's WASM backend through the engine ({ only: 'wasm' }): inputs resident, result read back, as a user calls it.
import { Engine } from '@tandem/core';
import { WasmBackend } from '@tandem/wasm';
import type { CosineRunner, MatmulRunner } from './runner.ts';

async function wasmEngine(threads: number): Promise<Engine> {
  return Engine.create({ backends: [new WasmBackend({ threads })], strategy: { only: 'wasm' } });
}

/** f32 matmul on `threads` threads (engine.matmul + read). */
export async function tandemMatmul(threads: number): Promise<MatmulRunner> {
  const engine = await wasmEngine(threads);
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

/** Cosine similarity of one query against resident raw targets (engine.cosineSimilarity + read). */
export async function tandemCosine(threads: number): Promise<CosineRunner> {
  const engine = await wasmEngine(threads);
  return {
    name: 'tandem-wasm',
    threads,
    note: 'raw targets (norms computed on first use and kept with the tensor)',
    prepare: async (query, targets, dim) => {
      const tq = engine.tensor(query, [dim]);
      const tt = engine.tensor(targets, [targets.length / dim, dim]);
      return async () => {
        const scores = await engine.cosineSimilarity(tq, tt);
        const out = await scores.read();
        scores.dispose();
        return out instanceof Float32Array ? out : new Float32Array(0);
      };
    },
    close: () => engine.dispose(),
  };
}
