// Every error code Tandem's errors carry (TandemError.code), one per failure, each with what it means: a closed
// union, so a program can switch on it exhaustively and a new code is added here, once.

/** Every code and its meaning. */
export const ERROR_CODES = {
  // The caller's mistakes: never counted against a backend, never retried elsewhere.
  INVALID_ARGUMENT: 'bad input: names the argument, the value and the rule or limit it broke',
  ABORTED: "the caller's AbortSignal fired",
  DISPOSED: 'an engine, tensor or backend was used after dispose()',
  // Calls no backend could take.
  ALL_BACKENDS_FAILED: 'every capable backend failed or none was capable; lists each one',
  RESOURCE_EXHAUSTED: 'no backend able to run the op has the memory it needs; refused before any was asked',
  // A backend's failures (BackendError): the engine falls back to the next backend.
  UNAVAILABLE: 'the backend has no device: init() failed, has not run or is re-running',
  UNSUPPORTED: 'the backend has no kernel for this op, dtype or size',
  OUT_OF_MEMORY: 'the backend could not allocate; names what and how many bytes',
  DEADLINE_EXCEEDED: 'an op ran past the engine deadline and was abandoned',
  DEVICE_LOST: 'the device behind the backend is gone (WebGPU device lost, GPU fault)',
  DATA_LOST: "a tensor's bytes are on no live replica (its device was lost)",
  UNKNOWN_BUFFER: 'a buffer handle that is not live on this backend (freed, never made, of another backend or device)',
  BUFFER_MISMATCH: 'a live buffer whose size does not fit the tensor bound to it',
  BAD_OUTPUT: "a backend's outputs do not match the op's output specs (count, dtype, size or owner)",
  BIND_FAILED: 'an input could not be bound to the chosen backend',
  KERNEL_FAILED: 'a kernel threw while running (wasm trap, reference kernel error)',
  GPU_ERROR: 'a WebGPU API call threw',
  GPU_VALIDATION: 'WebGPU reported a validation error (a shader or pipeline the device refuses)',
  GPU_INTERNAL: 'WebGPU reported an internal error',
  HIP_ERROR: 'the HIP / CUDA runtime or the addon returned an error (HipError.hipError has its name)',
  GPU_PROCESS_ERROR: 'the WebGPU child process failed in a way it could not describe',
  BAD_MESSAGE: 'a malformed message between the engine and the WebGPU child process',
  IPC_SEND_FAILED: 'a message to the WebGPU child process could not be sent',
  INJECTED: 'a fault injected by @tandem/testing',
  PHANTOM: "a graph planner's data-less placeholder tensor was read",
  // Errors of the libraries on top of the engine.
  GRAPH_INVALID: 'a graph node is invalid; names the node',
  GRAPH_RUN_FAILED: 'a graph node failed while the graph ran; names the node',
  BATCH_FAILED: 'a BatchEngine batch failed; every query in it gets this error',
  CLOSED: 'a BatchEngine was used after close()',
  HNSW_FORMAT: 'a saved HNSW index is malformed; names the byte offset',
  HNSW_VECTORS_MISMATCH: 'the vectors given are not the ones an HNSW index was built on',
  HNSW_CAPACITY: 'an HNSW index is full',
  DATASET: 'a dataset file is missing or malformed',
  PROFILE_INVALID:
    'a saved profile is not one this engine can use (corrupt, truncated, another format); names what is wrong',
  DEMO_DATA: "the demo's data file is missing or malformed",
} as const;

/** A code Tandem's errors carry: one per failure (ERROR_CODES says what each means). */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether `value` is one of Tandem's error codes (for codes that crossed a process boundary as text). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
