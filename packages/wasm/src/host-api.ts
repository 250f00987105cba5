// What the WASM backend needs from its host beyond WebAssembly itself: reading a file: URL, starting a worker thread
// and counting hardware threads. Node's version (host-node.ts) and the browsers' (host-browser.ts) are picked by the
// package's "#host" import condition, so a browser bundle never sees a `node:` module.

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

/** The host's services. */
export interface WasmHost {
  /** The bytes of a file: URL, or undefined when there is no such file. */
  readFileUrl(url: URL): Promise<Uint8Array | undefined>;
  /** Starts a worker running `source` (plain JavaScript). */
  spawnWorker(source: string): Promise<WorkerHandle>;
  /** Hardware threads of this host. */
  hardwareThreads(): Promise<number>;
}
