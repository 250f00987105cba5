// Compute steps take turns with I/O. The WASM kernels run on the event loop's thread, so a request that chains
// engine ops through promises alone never lets the loop poll sockets, and several such requests run back to back:
// /healthz waited behind four large batches (docs/decisions.md, issue 29). Each step (a batch of searches, a spreading activation, a
// slice of /trace) first awaits next(), which grants one waiter per loop iteration from setImmediate; between two
// steps the loop polls I/O, so a health check waits for at most about one step, whatever the number of requests.

/** Grants one waiting compute step per event-loop iteration, in arrival order. */
export class Turns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;
  private granted = 0;

  /** Resolves on a later loop iteration than the previous grant, after the I/O polled in between. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /** Steps waiting for a turn now. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Turns granted so far. */
  get grants(): number {
    return this.granted;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // An immediate queued from inside the check phase runs on the next iteration, after its poll phase.
    setImmediate(() => {
      this.scheduled = false;
      const resolve = this.waiting.shift();
      this.granted++;
      resolve?.();
      this.schedule();
    });
  }
}
