// The WASM backend's host services in Node: node:fs for file: URLs, worker_threads, os.availableParallelism.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { WasmHost, WorkerHandle } from './host-api.ts';

/** Node's services. */
export const host: WasmHost = {
  readFileUrl: async (url) => {
    try {
      return new Uint8Array(await readFile(url));
    } catch (error) {
      if (error instanceof Error && Reflect.get(error, 'code') === 'ENOENT') return undefined;
      throw error;
    }
  },
  spawnWorker: async (source) => nodeWorker(source),
  hardwareThreads: async () => availableParallelism(),
};

/** A worker_threads Worker evaluating `source`. */
function nodeWorker(source: string): WorkerHandle {
  const worker = new Worker(source, { eval: true });
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (listener) => worker.on('message', listener),
    onError: (listener) => {
      worker.on('error', listener);
      worker.on('exit', (code) => listener(new Error(`worker exited with code ${code}`)));
    },
    keepAlive: (alive) => (alive ? worker.ref() : worker.unref()),
    terminate: () => void worker.terminate(),
  };
}
