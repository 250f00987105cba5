// The kernel worker, as plain JavaScript source: spawned from a string (Node: eval worker; browsers: a Blob URL),
// so it needs no bundler support and no TypeScript loader.
//
// Start-up goes by message: main -> worker { type: 'init', module, memory, slot, names }, worker -> main
// { type: 'ready' } | { type: 'failed', error }. Jobs then go through a 64-byte control slot in the shared memory,
// because a postMessage round trip costs more than a 256^3 matmul half saves (docs/decisions.md, issue 29):
//   i32[0] request sequence (main bumps it and notifies; -1 = stop)   i32[1] done sequence (worker, then notifies)
//   i32[2] kernel index into `names`   i32[3] argument count   i32[4] 0 = ok, 1 = the kernel threw
//   i32[5] sequence of the job still on offer (0 = taken): the worker takes a job by swapping it to 0; the calling
//          thread, done with its own share, takes back a job nobody took yet and runs it itself (a worker that
//          wakes late then skips it), so a slow wake-up never makes the caller wait
//   f64[3..] arguments (byte offset 24, at most 16)
// Between jobs the worker spins for SPIN_MICROSECONDS (a model runs ops back to back, and waking a sleeping thread
// costs tens of microseconds, more in a VM), then blocks in Atomics.wait.

/** Bytes of one worker's control slot. */
export const CONTROL_SLOT_BYTES = 256;

/**
 * How long a waiting thread keeps checking before it blocks, microseconds. Waking a blocked thread costs as much as a
 * quarter of a 256^3 matmul (docs/decisions.md, issue 29): a worker spins this long after a job (ops run back to back),
 * and the calling thread this long for a worker that has taken its job (it finishes within one chunk).
 */
export const SPIN_MICROSECONDS = 150;

/** Most arguments a kernel call may have. */
export const MAX_KERNEL_ARGS = 16;

/** Source of the worker script (works as a Node eval worker, CommonJS or ESM, and as a classic Web Worker). */
export const WORKER_SOURCE = `
(async () => {
const node = typeof process === 'object' && typeof process.versions === 'object' && typeof process.versions.node === 'string';
// A dynamic import works whether Node evaluates this as CommonJS or (under --input-type=module) as ESM.
const port = node ? (await import('node:worker_threads')).parentPort : self;
const post = (message) => port.postMessage(message);
function serve(kernels, memory, slot, names) {
  const control = new Int32Array(memory.buffer, slot, 6);
  const args = new Float64Array(memory.buffer, slot + 24, ${MAX_KERNEL_ARGS});
  // Start from the last job done, not the last one posted: a job posted between 'ready' and this line still runs.
  let seen = Atomics.load(control, 1);
  for (;;) {
    const spinUntil = performance.now() + ${SPIN_MICROSECONDS / 1000};
    for (let spin = 1; Atomics.load(control, 0) === seen; spin++) if ((spin & 255) === 0 && performance.now() > spinUntil) break;
    Atomics.wait(control, 0, seen);
    const request = Atomics.load(control, 0);
    if (request === seen) continue;
    if (request < 0) return;
    seen = request;
    if (Atomics.compareExchange(control, 5, request, 0) !== request) {
      Atomics.store(control, 1, request);
      continue;
    }
    const kernel = kernels[names[control[2]]];
    const count = control[3];
    try {
      kernel(...Array.from(args.subarray(0, count)));
      control[4] = 0;
    } catch (error) {
      control[4] = 1;
      post({ type: 'kernel-error', error: String(error && error.message || error) });
    }
    Atomics.store(control, 1, request);
    Atomics.notify(control, 1);
  }
}
const handle = async (message) => {
  if (message.type !== 'init') return;
  let kernels;
  try {
    const imports = { env: { memory: message.memory, abort: () => { throw new Error('wasm kernel aborted'); } } };
    kernels = (await WebAssembly.instantiate(message.module, imports)).exports;
  } catch (error) {
    post({ type: 'failed', error: String(error && error.message || error) });
    return;
  }
  post({ type: 'ready' });
  serve(kernels, message.memory, message.slot, message.names);
};
if (node) port.on('message', handle); else port.onmessage = (event) => handle(event.data);
})();
`;
