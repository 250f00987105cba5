// A pool of worker threads running kernels on the shared linear memory. One parallel op at a time: its first job
// runs on the calling thread while the others run on workers; a job no worker has taken by the time the calling
// thread is done runs on the calling thread too. Jobs are handed over through control slots in the
// shared memory with Atomics (see worker-source.ts), ~10x cheaper than a postMessage round trip.
import type { KernelCall, KernelName, Kernels } from './kernel-exports.ts';
import { host } from '#host';
import type { WorkerHandle } from './host-api.ts';
import type { WasmMemory, WasmModule } from './wasm-api.ts';
import { CONTROL_SLOT_BYTES, MAX_KERNEL_ARGS, SPIN_MICROSECONDS, WORKER_SOURCE } from './worker-source.ts';

function field(message: unknown, key: string): unknown {
  return typeof message === 'object' && message !== null ? Reflect.get(message, key) : undefined;
}

/** Whether this thread may block in Atomics.wait (Node's main thread may; a browser's main thread may not). */
function canBlock(probe: Int32Array): boolean {
  try {
    Atomics.wait(probe, 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

/** Where one worker's control slot is. */
interface Slot {
  readonly worker: WorkerHandle;
  readonly control: Int32Array;
  readonly args: Float64Array;
  sequence: number;
}

/** Worker threads over one shared memory, plus the calling thread. */
export class KernelPool {
  private readonly slots: Slot[];
  private readonly names: readonly KernelName[];
  private readonly blocking: boolean;
  private queue: Promise<void> = Promise.resolve();
  private broken: Error | undefined;
  private readonly workerErrors: string[] = [];
  private errorWaiter: (() => void) | undefined;
  /** Ops that ran split across threads so far. */
  parallelOps = 0;
  /** Jobs the calling thread took back and ran itself because no worker had taken them yet. */
  takenBack = 0;

  private constructor(slots: Slot[], names: readonly KernelName[]) {
    this.slots = slots;
    this.names = names;
    this.blocking = slots[0] === undefined || canBlock(slots[0].control);
    for (const { worker } of slots) {
      worker.onMessage((message) => {
        if (field(message, 'type') !== 'kernel-error') return;
        this.workerErrors.push(String(field(message, 'error')));
        this.errorWaiter?.();
      });
      worker.onError((error) => {
        this.broken ??= error instanceof Error ? error : new Error(String(error));
      });
    }
  }

  /**
   * Starts `count` workers, each instantiating `module` over the shared `memory`; `slots` is a 16-aligned block of
   * count * CONTROL_SLOT_BYTES in that memory for their control slots. Rejects if any worker fails.
   */
  static async start(
    module: WasmModule,
    memory: WasmMemory,
    count: number,
    slots: number,
    names: readonly KernelName[],
  ): Promise<KernelPool> {
    const started: Slot[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const at = slots + i * CONTROL_SLOT_BYTES;
        const control = new Int32Array(memory.buffer, at, 6);
        control.fill(0);
        started.push({
          worker: await host.spawnWorker(WORKER_SOURCE),
          control,
          args: new Float64Array(memory.buffer, at + 24, MAX_KERNEL_ARGS),
          sequence: 0,
        });
      }
      await Promise.all(
        started.map((slot, i) => initialise(slot.worker, module, memory, slots + i * CONTROL_SLOT_BYTES, names)),
      );
      // Idle workers must not keep a Node process alive; while a job runs, the calling thread waits for it anyway.
      for (const slot of started) slot.worker.keepAlive(false);
    } catch (error) {
      for (const slot of started) slot.worker.terminate();
      throw error;
    }
    return new KernelPool(started, names);
  }

  /** Threads an op can use: the workers and the calling thread. */
  get threads(): number {
    return this.slots.length + 1;
  }

  /** Runs jobs[0] here and the rest on workers (at most `threads` jobs); resolves when every job is done. */
  run(kernels: Kernels, jobs: readonly KernelCall[]): Promise<void> {
    const turn = this.queue.then(() => this.runNow(kernels, jobs));
    this.queue = turn.catch(() => {});
    return turn;
  }

  /** Stops every worker. */
  terminate(): void {
    this.broken ??= new Error('the worker pool was terminated');
    for (const slot of this.slots) {
      Atomics.store(slot.control, 0, -1);
      Atomics.notify(slot.control, 0);
      slot.worker.terminate();
    }
  }

  private async runNow(kernels: Kernels, jobs: readonly KernelCall[]): Promise<void> {
    if (this.broken !== undefined) throw this.broken;
    if (jobs.length > this.threads) throw new Error(`${jobs.length} jobs for ${this.threads} threads`);
    const posted = jobs.slice(1).map((job, i) => ({ job, slot: this.post(i, job) }));
    this.parallelOps++;
    let local: unknown;
    try {
      const first = jobs[0];
      if (first !== undefined) kernels.invoke(first);
    } catch (error) {
      local = error;
    }
    const remote: Slot[] = [];
    for (const { job, slot } of posted) {
      if (Atomics.compareExchange(slot.control, 5, slot.sequence, 0) !== slot.sequence) {
        remote.push(slot);
        continue;
      }
      this.takenBack++;
      try {
        if (local === undefined) kernels.invoke(job);
      } catch (error) {
        local = error;
      }
    }
    for (const slot of remote) await this.waitFor(slot);
    if (local !== undefined) throw local;
    const failed = remote.filter((slot) => slot.control[4] !== 0).length;
    if (failed > 0) throw new Error(`a worker kernel failed: ${await this.takeWorkerErrors(failed)}`);
  }

  /** The messages of `count` failed worker jobs (posted after their done flag; waits up to a second for them). */
  private async takeWorkerErrors(count: number): Promise<string> {
    const deadline = Date.now() + 1000;
    while (this.workerErrors.length < count && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.errorWaiter = resolve;
        setTimeout(resolve, 50);
      });
    }
    this.errorWaiter = undefined;
    const messages = this.workerErrors.splice(0, this.workerErrors.length);
    return messages.length === 0 ? 'no message' : messages.join('; ');
  }

  /** Writes a job into worker i's slot and wakes it. */
  private post(index: number, job: KernelCall): Slot {
    const slot = this.slots[index];
    if (slot === undefined) throw new Error(`no worker ${index}`);
    if (job.args.length > MAX_KERNEL_ARGS)
      throw new Error(`${job.name} has ${job.args.length} arguments; a worker takes ${MAX_KERNEL_ARGS}`);
    slot.args.set(job.args);
    slot.control[2] = this.names.indexOf(job.name);
    slot.control[3] = job.args.length;
    slot.control[4] = 0;
    slot.sequence++;
    Atomics.store(slot.control, 5, slot.sequence);
    Atomics.store(slot.control, 0, slot.sequence);
    Atomics.notify(slot.control, 0);
    return slot;
  }

  /**
   * Waits until the slot's worker reports its current job done: a spin of SPIN_MICROSECONDS (it has taken the job,
   * and the threads' shares end close together), then blocking in 20 ms slices where this thread may (Node), else
   * polling; between slices it yields to the event loop, so a dead worker's 'exit' event (and a test runner's
   * timeout) still get through.
   */
  private async waitFor(slot: Slot): Promise<void> {
    const spinUntil = performance.now() + SPIN_MICROSECONDS / 1000;
    for (let checks = 1; ; checks++) {
      const done = Atomics.load(slot.control, 1);
      if (done === slot.sequence) return;
      if (this.broken !== undefined) throw this.broken;
      if ((checks & 255) !== 0 || performance.now() < spinUntil) continue;
      if (this.blocking && Atomics.wait(slot.control, 1, done, 20) !== 'timed-out') continue;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}

/** Sends the module, memory and slot to one worker and waits for it to instantiate them. */
function initialise(
  worker: WorkerHandle,
  module: WasmModule,
  memory: WasmMemory,
  slot: number,
  names: readonly KernelName[],
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    worker.onMessage((message) => {
      const type = field(message, 'type');
      if (type === 'ready') resolve();
      else if (type === 'failed')
        reject(new Error(`a worker could not instantiate the kernels: ${String(field(message, 'error'))}`));
    });
    worker.onError((error) => reject(error instanceof Error ? error : new Error(String(error))));
    worker.post({ type: 'init', module, memory, slot, names });
  });
}
