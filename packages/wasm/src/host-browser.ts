// The WASM backend's host services in browsers and workers: classic Web Workers from Blob URLs and
// navigator.hardwareConcurrency; file: URLs are a Node matter.
import type { WasmHost, WorkerHandle } from './host-api.ts';

/** The browser's services. */
export const host: WasmHost = {
  readFileUrl: async (url) => {
    throw new Error(`${url.href}: file: URLs are read only in Node; serve the .wasm files over http(s)`);
  },
  spawnWorker: async (source) => browserWorker(source),
  hardwareThreads: async () => {
    const nav: unknown = Reflect.get(globalThis, 'navigator');
    const threads = typeof nav === 'object' && nav !== null ? Reflect.get(nav, 'hardwareConcurrency') : undefined;
    return typeof threads === 'number' && threads > 0 ? threads : 1;
  },
};

/** The Web Worker members used here. */
interface WebWorkerLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  terminate(): void;
}

function isWebWorker(value: unknown): value is WebWorkerLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof Reflect.get(value, 'postMessage') === 'function' &&
    typeof Reflect.get(value, 'terminate') === 'function'
  );
}

/** A classic Web Worker from a Blob URL. */
function browserWorker(source: string): WorkerHandle {
  const WorkerClass: unknown = Reflect.get(globalThis, 'Worker');
  if (typeof WorkerClass !== 'function') throw new Error('this host has no Worker');
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker: unknown = Reflect.construct(WorkerClass, [url]);
  URL.revokeObjectURL(url);
  if (!isWebWorker(worker)) throw new Error('could not start a Web Worker');
  return {
    post: (message) => worker.postMessage(message),
    onMessage: (listener) => {
      worker.onmessage = (event) => listener(event.data);
    },
    onError: (listener) => {
      worker.onerror = (event) => listener(event);
    },
    keepAlive: () => {},
    terminate: () => worker.terminate(),
  };
}
