// How the backend waits on GPU promises. Browsers need nothing special; dawn.node spins a core while a
// promise is pending, which node-wait.ts's throttled waiter avoids.

/** Wraps every wait on a WebGPU promise (mapAsync, onSubmittedWorkDone, popErrorScope, requestDevice). */
export interface GpuWaiter {
  /** Starts the GPU operation (the call that creates the promise) and resolves with its result. */
  wait<T>(start: () => Promise<T>): Promise<T>;
}

/** Awaits the promise as is: right for browsers, whose WebGPU does not poll on the page's thread. */
export const directWaiter: GpuWaiter = {
  wait: (start) => start(),
};
