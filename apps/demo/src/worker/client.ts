// The page's side of the engine worker: typed requests (each a promise of its reply, rejected with the error as a
// sentence) and listeners for the worker's events.
import type { ShownError } from '../sentences.ts';
import type { Replies, ReplyOf, Requests, WorkerEvent, WorkerMessage } from './protocol.ts';

/** A request the worker refused: its sentence is the message; the error's own name is kept apart. */
export class WorkerRequestError extends Error {
  override readonly name = 'WorkerRequestError';
  /** The error as the worker described it. */
  readonly shown: ShownError;
  constructor(shown: ShownError) {
    super(shown.sentence);
    this.shown = shown;
  }
}

/** Resolvers of the requests in flight, per kind (typed by their kind's reply). */
type Pending = {
  [K in keyof Replies]: Map<
    number,
    { resolve: (value: Replies[K]) => void; reject: (error: WorkerRequestError) => void }
  >;
};

/** The engine worker, from the page. */
export class EngineClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending: Pending = {
    start: new Map(),
    loadWords: new Map(),
    loadWordNet: new Map(),
    search: new Map(),
    synsets: new Map(),
    spread: new Map(),
    workload: new Map(),
    loseGpu: new Map(),
    sweep: new Map(),
    sweepDrawn: new Map(),
    cancelSweep: new Map(),
    trace: new Map(),
  };
  private readonly listeners = new Set<(event: WorkerEvent) => void>();

  constructor() {
    this.worker = new Worker(new URL('./engine-worker.ts', import.meta.url), { type: 'module', name: 'tandem-engine' });
    this.worker.addEventListener('message', (event: MessageEvent<WorkerMessage>) => this.receive(event.data));
  }

  /** Sends a request; resolves with the worker's reply or rejects with its error as a sentence. */
  call<K extends keyof Requests>(kind: K, args: Requests[K]): Promise<Replies[K]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending[kind].set(id, { resolve, reject });
      this.worker.postMessage({ id, kind, args });
    });
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe function. */
  on(listener: (event: WorkerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private receive(message: WorkerMessage): void {
    if ('event' in message) {
      for (const listener of this.listeners) listener(message);
      return;
    }
    if (message.ok) this.settle(message);
    else {
      const entry = this.pending[message.kind].get(message.id);
      this.pending[message.kind].delete(message.id);
      entry?.reject(new WorkerRequestError(message.error));
    }
  }

  private settle<K extends keyof Replies>(reply: ReplyOf<K>): void {
    const waiting: Pending[K] = this.pending[reply.kind];
    const entry = waiting.get(reply.id);
    waiting.delete(reply.id);
    entry?.resolve(reply.value);
  }
}
