// @tensorflow/tfjs-backend-webgpu in this process, on the same dawn.node GPU object Tandem's backend uses (ONE dawn
// instance per process: a second create() aborts natively). Node 20 has no `navigator`, and tfjs registers its
// webgpu backend at import time only when navigator.gpu exists, so the shim installs { gpu } first.
// Timed the way tfjs users do: tf.matMul then `await data()` (wall), and tf.time() for kernelMs, which tfjs fills
// from timestamp queries when the device has 'timestamp-query' (else it reports an error object, kept as absent).
import { errorMessage, InvalidArgumentError, monotonicClock } from '@tandem/core';
import { createNodeGpu } from '@tandem/webgpu/node';
import type { Outcome } from './guard.ts';

type Tf = typeof import('@tensorflow/tfjs-core');

/** One tfjs matmul case on resident inputs. */
export interface TfjsMatmulCase {
  /** tf.matMul + await data(): wall ms and the values. */
  wall(): Promise<{ readonly wallMs: number; readonly values: Float32Array }>;
  /** tf.time(() => tf.matMul) kernelMs, or undefined when tfjs reports none. */
  kernel(): Promise<number | undefined>;
  /** Frees the inputs. */
  dispose(): void;
}

/** tfjs on its webgpu backend. */
export interface TfjsWebGpu {
  /** tfjs version and adapter. */
  readonly description: string;
  /** Inputs a, b (n x n, row-major) uploaded as tensors. */
  matmul(n: number, a: Float32Array, b: Float32Array): TfjsMatmulCase;
}

function isGpu(value: unknown): value is GPU {
  return (
    typeof value === 'object' &&
    value !== null &&
    'requestAdapter' in value &&
    typeof value.requestAdapter === 'function'
  );
}

/**
 * Makes `host.navigator.gpu` be `gpu` (creating `navigator` when absent); leaves an existing GPU in place.
 * Returns what was done. Throws InvalidArgumentError when `gpu` is not a GPU or navigator cannot take one.
 */
export function installNavigatorGpu(host: object, gpu: unknown): 'kept' | 'added' | 'created' {
  if (!isGpu(gpu))
    throw new InvalidArgumentError('installNavigatorGpu.gpu', typeof gpu, 'a WebGPU GPU object (with requestAdapter)');
  const nav: unknown = Reflect.get(host, 'navigator');
  if (nav === undefined) {
    Object.defineProperty(host, 'navigator', { value: { gpu }, configurable: true, writable: true });
    return 'created';
  }
  if (typeof nav !== 'object' || nav === null)
    throw new InvalidArgumentError('installNavigatorGpu.host.navigator', typeof nav, 'an object or absent');
  if (isGpu(Reflect.get(nav, 'gpu'))) return 'kept';
  if (!Reflect.defineProperty(nav, 'gpu', { value: gpu, configurable: true }))
    throw new InvalidArgumentError(
      'installNavigatorGpu.host.navigator',
      'read-only',
      'a navigator that accepts a gpu property',
    );
  return 'added';
}

/** kernelMs of a tf.time() result: a finite non-negative number, else undefined ({ error } when unsupported). */
export function kernelMsOf(info: { readonly kernelMs: unknown }): number | undefined {
  const k = info.kernelMs;
  return typeof k === 'number' && Number.isFinite(k) && k >= 0 ? k : undefined;
}

function checkSquare(n: number, a: Float32Array, b: Float32Array): void {
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('tfjs matmul n', n, 'a positive integer');
  if (a.length !== n * n) throw new InvalidArgumentError('tfjs matmul a.length', a.length, `n x n = ${n * n}`);
  if (b.length !== n * n) throw new InvalidArgumentError('tfjs matmul b.length', b.length, `n x n = ${n * n}`);
}

function matmulCase(tf: Tf, n: number, a: Float32Array, b: Float32Array): TfjsMatmulCase {
  checkSquare(n, a, b);
  const ta = tf.tensor2d(a, [n, n]);
  const tb = tf.tensor2d(b, [n, n]);
  return {
    async wall() {
      const t0 = monotonicClock();
      const c = tf.matMul(ta, tb);
      const data = await c.data();
      const wallMs = monotonicClock() - t0;
      c.dispose();
      if (!(data instanceof Float32Array)) throw new Error('tfjs matMul did not return f32 data');
      return { wallMs, values: data };
    },
    async kernel() {
      const kept: Array<{ dispose(): void }> = [];
      const info = await tf.time(() => {
        kept.push(tf.matMul(ta, tb));
      });
      for (const t of kept) t.dispose();
      return kernelMsOf(info);
    },
    dispose() {
      ta.dispose();
      tb.dispose();
    },
  };
}

let loaded: Promise<Outcome<TfjsWebGpu>> | undefined;

/** Loads tfjs with its webgpu backend on this process's dawn.node GPU (once); { ok: false, reason } if it can't. */
export function loadTfjsWebGpu(): Promise<Outcome<TfjsWebGpu>> {
  loaded ??= (async (): Promise<Outcome<TfjsWebGpu>> => {
    try {
      const gpu = await createNodeGpu();
      const installed = installNavigatorGpu(globalThis, gpu);
      const tf = await import('@tensorflow/tfjs-core');
      await import('@tensorflow/tfjs-backend-webgpu');
      if (tf.findBackendFactory('webgpu') === null)
        return { ok: false, reason: 'tfjs-backend-webgpu did not register (navigator.gpu missing at import)' };
      if (!(await tf.setBackend('webgpu')))
        return { ok: false, reason: 'tfjs could not initialise its webgpu backend (setBackend returned false)' };
      await tf.ready();
      return {
        ok: true,
        value: {
          description: `@tensorflow/tfjs-backend-webgpu ${tf.version_core} on the same dawn.node GPU (navigator.gpu ${installed} by the shim)`,
          matmul: (n, a, b) => matmulCase(tf, n, a, b),
        },
      };
    } catch (error) {
      return { ok: false, reason: `tfjs-backend-webgpu: ${errorMessage(error)}` };
    }
  })();
  return loaded;
}
