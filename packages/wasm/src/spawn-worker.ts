// The host-specific part of threads: Node's worker_threads or the browser's Worker, behind one small interface.

/** A started worker thread. */
export interface WorkerHandle {
  /** Sends a message (structured clone: WebAssembly.Module and shared Memory included). */
  post(message: unknown): void;
  /** Registers the one message listener. */
  onMessage(listener: (message: unknown) => void): void;
  /** Registers the one error listener (uncaught errors, worker exit). */
  onError(listener: (error: unknown) => void): void;
  /** Whether the worker keeps a Node process alive: yes while it starts up, no once idle (jobs block the caller). */
  keepAlive(alive: boolean): void;
  /** Stops the worker. */
  terminate(): void;
}

/** Starts a worker running `source` (plain JavaScript). */
export async function spawnWorker(source: string): Promise<WorkerHandle> {
  const WebWorker: unknown = Reflect.get(globalThis, 'Worker');
  if (isNode()) {
    const { Worker } = await import('node:worker_threads');
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
  if (typeof WebWorker !== 'function') throw new Error('this host has no Worker');
  return browserWorker(source);
}

/** Hardware threads of this host (navigator.hardwareConcurrency, or os.availableParallelism in Node 20). */
export async function hostThreads(): Promise<number> {
  const navigatorObject: unknown = Reflect.get(globalThis, 'navigator');
  const fromNavigator = typeof navigatorObject === 'object' && navigatorObject !== null ? Reflect.get(navigatorObject, 'hardwareConcurrency') : undefined;
  if (typeof fromNavigator === 'number' && fromNavigator > 0) return fromNavigator;
  if (isNode()) return (await import('node:os')).availableParallelism();
  return 1;
}

function isNode(): boolean {
  const proc: unknown = Reflect.get(globalThis, 'process');
  if (typeof proc !== 'object' || proc === null) return false;
  const versions: unknown = Reflect.get(proc, 'versions');
  return typeof versions === 'object' && versions !== null && typeof Reflect.get(versions, 'node') === 'string';
}

/** A classic Web Worker from a Blob URL. */
function browserWorker(source: string): WorkerHandle {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const WorkerClass: unknown = Reflect.get(globalThis, 'Worker');
  const worker: unknown = typeof WorkerClass === 'function' ? Reflect.construct(WorkerClass, [url]) : undefined;
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

/** The Web Worker members used here. */
interface WebWorkerLike {
  postMessage(message: unknown): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  terminate(): void;
}

function isWebWorker(value: unknown): value is WebWorkerLike {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'postMessage') === 'function' && typeof Reflect.get(value, 'terminate') === 'function';
}
