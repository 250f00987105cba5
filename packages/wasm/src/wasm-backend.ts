// @tandem/wasm's backend: the AssemblyScript kernels behind CapableBackend. Tensors live in one wasm linear memory
// (WasmHeap); run() passes pointers, so resident tensors are never copied per call. Large matmul, quantized matmul,
// attention and cosine similarity can split rows across a worker pool over shared memory.
import {
  BackendError,
  byteLengthOf,
  checkCapabilities,
  errorMessage,
  inferOutputs,
  monotonicClock,
  numel,
  opInputs,
  sameShape,
  TandemError,
  type BackendHealth,
  type BoundTensor,
  type CapableBackend,
  type Capability,
  type Clock,
  type DeviceBuffer,
  type DeviceDescription,
  type InitResult,
  type Op,
  type RunResult,
  type SupportVerdict,
  type TensorSpec,
} from '@tandem/core';
import type { AllocatorStats } from './allocator.ts';
import { WASM_CAPABILITIES } from './capabilities.ts';
import { loadKernels, type LoadedKernels, type SimdChoice } from './instantiate.ts';
import { KernelPool } from './kernel-pool.ts';
import { KERNEL_NAMES } from './kernel-exports.ts';
import { LinearMemory, WASM32_LIMIT_BYTES } from './linear-memory.ts';
import type { DerivedBlock, RunContext } from './run-context.ts';
import { moduleRefusal, runOp } from './run-op.ts';
import { host } from '#host';
import { describeSpec, WasmHeap } from './wasm-heap.ts';
import { CONTROL_SLOT_BYTES } from './worker-source.ts';

/** Options of a WasmBackend; all optional. */
export interface WasmBackendOptions {
  /** 'auto' (default) loads the relaxed-SIMD build when the engine validates it, else plain SIMD. */
  readonly simd?: SimdChoice;
  /**
   * Threads for large matmul / quantized matmul / attention / cosine similarity: 1 (default) runs everything on the
   * calling thread; n > 1 starts n - 1 workers over shared memory (Node worker_threads; Web Workers in
   * cross-origin-isolated pages); 'auto' uses the host's hardware threads, at most 8. Where shared memory is not
   * available the backend runs single-threaded and says why in health().
   */
  readonly threads?: number | 'auto';
  /** Cap on linear memory, bytes (default and most: 4 GiB, the wasm32 limit). */
  readonly maxMemoryBytes?: number;
  /** Folder URL (ending in '/') holding the tandem-*.wasm files; default: this package's dist/. */
  readonly distUrl?: URL;
  /** Clock for kernelMs (default: performance.now). */
  readonly clock?: Clock;
}

/** Backend name, as in telemetry and `{ only: 'wasm' }`. */
export const WASM_BACKEND_NAME = 'wasm';

/** What init() set up. */
interface Running {
  readonly loaded: LoadedKernels;
  readonly heap: WasmHeap;
  readonly pool: KernelPool | undefined;
  /** Why fewer threads run than were asked for, if so. */
  readonly threadsNote: string | undefined;
  /** 'simd', 'relaxed-simd', 'threads' as loaded (built once: decisions read it). */
  readonly features: readonly string[];
  /** health() while running (built once: every call reads it). */
  readonly health: BackendHealth;
}

/** The CPU backend: WebAssembly SIMD kernels over one linear memory. */
export class WasmBackend implements CapableBackend {
  readonly name = WASM_BACKEND_NAME;
  readonly kind = 'cpu';
  readonly priority = 10;
  readonly capabilities: readonly Capability[] = WASM_CAPABILITIES;
  private readonly options: WasmBackendOptions;
  private readonly clock: Clock;
  private running: Running | undefined;
  private failure: string | undefined;
  private starting: Promise<InitResult> | undefined;

  constructor(options: WasmBackendOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? monotonicClock;
  }

  /** Loads the kernels; resolves { ok: false, reason } (naming a missing .wasm and the build command) instead of throwing. */
  init(): Promise<InitResult> {
    this.starting ??= this.start();
    return this.starting;
  }

  private async start(): Promise<InitResult> {
    const maxBytes = Math.min(WASM32_LIMIT_BYTES, this.options.maxMemoryBytes ?? WASM32_LIMIT_BYTES);
    const requested = this.options.threads ?? 1;
    const threads =
      requested === 'auto' ? Math.min(8, await host.hardwareThreads()) : Math.max(1, Math.floor(requested));
    const result = await loadKernels({
      simd: this.options.simd ?? 'auto',
      threads: threads > 1,
      maxBytes,
      distUrl: this.options.distUrl,
    });
    if (!result.ok) {
      this.failure = result.reason;
      return { ok: false, reason: result.reason };
    }
    const loaded = result.loaded;
    const heap = new WasmHeap(this.name, new LinearMemory(loaded.memory, loaded.maxBytes), loaded.kernels.heap_base());
    let pool: KernelPool | undefined;
    let threadsNote: string | undefined;
    if (threads > 1 && !loaded.build.threads) {
      threadsNote = `${threads} threads were requested but this host cannot share wasm memory (no SharedArrayBuffer, or the page is not cross-origin isolated): running on one thread`;
    } else if (threads > 1) {
      try {
        const slots = heap.allocateBlock((threads - 1) * CONTROL_SLOT_BYTES, 'worker control slots');
        pool = await KernelPool.start(loaded.module, loaded.memory, threads - 1, slots, KERNEL_NAMES);
      } catch (error) {
        threadsNote = `the worker pool did not start (${errorMessage(error)}): running on one thread`;
      }
    }
    const features = loaded.build.relaxed ? ['simd', 'relaxed-simd'] : ['simd'];
    if (pool !== undefined) features.push('threads');
    const health: BackendHealth =
      threadsNote === undefined ? { state: 'healthy' } : { state: 'degraded', reason: threadsNote };
    this.running = { loaded, heap, pool, threadsNote, features, health };
    return { ok: true };
  }

  /** The build in use, its features ('simd', 'relaxed-simd', 'threads') and memory. */
  describe(): DeviceDescription {
    const running = this.running;
    if (running === undefined)
      return { name: 'WebAssembly (not loaded)', memoryBytes: WASM32_LIMIT_BYTES, features: [] };
    const { loaded, heap, pool, features } = running;
    const threads = pool?.threads ?? 1;
    return {
      name: `WebAssembly ${loaded.build.relaxed ? 'relaxed SIMD' : 'SIMD128'} (${loaded.build.file}, ${threads} thread${threads === 1 ? '' : 's'})`,
      memoryBytes: heap.limitBytes,
      availableMemoryBytes: heap.limitBytes - heap.stats().usedBytes,
      features,
      // A little under what one core measured with scripts/bench.ts (docs/decisions.md, issue 29); more threads scale.
      performance: {
        flopsPerMs: 45e6 * (1 + 0.9 * (threads - 1)),
        bytesPerMs: 15e6,
        launchMs: 0.005,
        transferBytesPerMs: 8e6,
      },
    };
  }

  /** Free linear memory before the limit, bytes (cheap: called on every decision). */
  availableMemory(): number | undefined {
    return this.running?.heap.availableBytes();
  }

  /** The capability table, the loaded module's exports, then a check that every tensor fits in the wasm32 memory. */
  supportsOp(op: Op<TensorSpec>, outputs?: readonly TensorSpec[]): SupportVerdict {
    const verdict = checkCapabilities(this.capabilities, op);
    if (!verdict.ok) return verdict;
    const missing = this.running === undefined ? undefined : moduleRefusal(op.op, this.running.loaded.kernels);
    if (missing !== undefined) return { ok: false, reason: missing };
    const limit = this.running?.heap.limitBytes ?? WASM32_LIMIT_BYTES;
    for (const input of opInputs(op)) {
      const refused = refuseOverLimit(op.op, input.name, input.tensor, limit);
      if (refused !== undefined) return refused;
    }
    for (const [i, output] of (outputs ?? inferOutputs(op)).entries()) {
      const refused = refuseOverLimit(op.op, `output ${i}`, output, limit);
      if (refused !== undefined) return refused;
    }
    return { ok: true };
  }

  /** Copies host bytes into a new block of linear memory. */
  async upload(data: Uint8Array, spec: TensorSpec): Promise<DeviceBuffer> {
    const { heap } = this.ready();
    const buffer = heap.allocateBuffer(data.byteLength, `upload of ${describeSpec(spec)}`);
    heap.write(buffer, data);
    return buffer;
  }

  /** Copies a buffer out of linear memory. */
  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    return this.ready().heap.read(buffer);
  }

  /** Returns a buffer's block to the allocator; unknown or foreign buffers are ignored. */
  free(buffer: DeviceBuffer): void {
    this.running?.heap.free(buffer);
  }

  /** Runs one op on resident inputs; kernelMs covers the kernel calls (f16 conversions and thread hand-offs included), not allocation. */
  async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    const { loaded, heap, pool } = this.ready();
    const kernels = loaded.kernels;
    const expected = inferOutputs(op);
    if (
      expected.length !== outputs.length ||
      expected.some((e, i) => e.dtype !== outputs[i]?.dtype || !sameShape(e.shape, outputs[i]?.shape ?? []))
    ) {
      throw new BackendError(
        'BAD_OUTPUT',
        this.name,
        `${op.op}: outputs ${outputs.map(describeSpec).join(', ')} do not match the op (${expected.map(describeSpec).join(', ')})`,
      );
    }
    const results: DeviceBuffer[] = [];
    const scratch: number[] = [];
    const created: DerivedBlock[] = [];
    try {
      for (const [i, spec] of outputs.entries()) {
        results.push(
          heap.allocateBuffer(
            byteLengthOf(spec.dtype, numel(spec.shape)),
            `${op.op} output ${i} ${describeSpec(spec)}`,
          ),
        );
      }
      const context: RunContext = {
        kernels,
        threads: pool?.threads ?? 1,
        parallel: (calls) => {
          if (pool !== undefined && calls.length > 1) return pool.run(kernels, calls);
          for (const call of calls) kernels.invoke(call);
          return Promise.resolve();
        },
        pointer: (tensor) => heap.inputPointer(op.op, tensor),
        scratch: (bytes, what) => {
          const pointer = heap.allocateBlock(bytes, `${op.op} scratch (${what})`);
          scratch.push(pointer);
          return pointer;
        },
        derived: (tensor, tag, bytes) => {
          const block = heap.derived(tensor, tag, bytes);
          if (block !== undefined && !block.ready) created.push(block);
          return block;
        },
      };
      const pointers = results.map((b) => heap.pointerOf(b));
      const t0 = this.clock();
      if (outputs.some((o) => numel(o.shape) > 0)) await runOp(op, pointers, context);
      const kernelMs = this.clock() - t0;
      heap.settleDerived(created, true);
      return { outputs: results, kernelMs };
    } catch (error) {
      for (const b of results) heap.free(b);
      heap.settleDerived(created, false);
      if (error instanceof TandemError) throw error;
      throw new BackendError('KERNEL_FAILED', this.name, `${op.op} failed: ${errorMessage(error)}`, { cause: error });
    } finally {
      for (const pointer of scratch) heap.releaseBlock(pointer);
    }
  }

  /** Healthy once loaded; degraded when fewer threads run than were asked for; unavailable before init or after a failed one. */
  health(): BackendHealth {
    const running = this.running;
    if (running === undefined) return { state: 'unavailable', reason: this.failure ?? 'init() has not run' };
    return running.health;
  }

  /** Drops every buffer, the workers and the module; init() may be called again. */
  async dispose(): Promise<void> {
    this.running?.pool?.terminate();
    this.running = undefined;
    this.starting = undefined;
    this.failure = 'disposed';
  }

  /**
   * Threads in use, how many ops ran split across them, and how many worker jobs the calling thread took back
   * because no worker had started them yet (tests, diagnostics, benchmarks).
   */
  threadStats(): { threads: number; parallelOps: number; takenBack: number } {
    const pool = this.running?.pool;
    return { threads: pool?.threads ?? 1, parallelOps: pool?.parallelOps ?? 0, takenBack: pool?.takenBack ?? 0 };
  }

  /** Allocator counters (tests, diagnostics). */
  memoryStats(): AllocatorStats | undefined {
    return this.running?.heap.stats();
  }

  private ready(): Running {
    if (this.running === undefined) {
      throw new BackendError(
        'UNAVAILABLE',
        this.name,
        this.failure === undefined ? 'init() has not succeeded' : `unavailable: ${this.failure}`,
      );
    }
    return this.running;
  }
}

/** A refusal if one tensor of an op needs more bytes than the wasm32 memory can hold. */
function refuseOverLimit(op: string, name: string, spec: TensorSpec, limit: number): SupportVerdict | undefined {
  const bytes = byteLengthOf(spec.dtype, numel(spec.shape));
  return bytes > limit
    ? {
        ok: false,
        reason: `${op} ${name} ${describeSpec(spec)} needs ${bytes} bytes; wasm32 memory holds at most ${limit}`,
      }
    : undefined;
}
