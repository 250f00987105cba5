// Moves storage between the host and backends, learns transfer bandwidth, and frees replicas.
import type { CapableBackend, DeviceBuffer } from './backend.ts';
import type { Clock } from './clock.ts';
import { BackendError, errorMessage } from './errors.ts';
import type { Storage } from './tensor.ts';
import type { TensorSpec } from './ops.ts';

/** Copies under this many bytes time the per-copy overhead (call, synchronisation), not the bandwidth. */
const SMALL_COPY_BYTES = 64 * 1024;

/** Recent copies each estimate is the median of: one slow copy (a GC pause, a busy host) does not move it. */
const COPIES_KEPT = 15;

/** The last COPIES_KEPT values and their median. */
class RecentMedian {
  private readonly values: number[] = [];
  /** Median of the values kept (undefined before the first). */
  median: number | undefined;

  add(value: number): void {
    this.values.push(value);
    if (this.values.length > COPIES_KEPT) this.values.shift();
    const sorted = [...this.values].sort((a, b) => a - b);
    this.median = sorted[sorted.length >> 1];
  }
}

/**
 * Transfer speed of one backend, as time = latency + bytes / bandwidth: the latency is the median of recent small
 * copies' times less their bytes / bandwidth (0 until measured), the bandwidth the backend's prior until measured,
 * then the median of recent larger copies' bytes / (time - latency). The first copy of each kind also pays for
 * allocation and is skipped. Medians, not moving averages: on the H100 host a few slow copies had pushed rocm's
 * per-copy latency to ~0.9 ms (its copies take ~0.03), which priced an 8 KB read-back like a 2 MB one and kept auto
 * off rocm for whole stretches of calls.
 */
class Bandwidth {
  private readonly latencies = new RecentMedian();
  private readonly rates = new RecentMedian();
  private warmedUp = false;
  private latencyWarmedUp = false;
  constructor(private readonly prior: () => number) {}
  /** Time of a small copy, ms. */
  get latencyMs(): number {
    return this.latencies.median ?? 0;
  }
  get bytesPerMs(): number {
    return this.rates.median ?? this.prior();
  }
  observe(bytes: number, ms: number): void {
    if (bytes < SMALL_COPY_BYTES) {
      if (!this.latencyWarmedUp) this.latencyWarmedUp = true;
      else this.latencies.add(Math.max(0, ms - bytes / this.bytesPerMs));
      return;
    }
    if (!this.warmedUp) {
      this.warmedUp = true;
      return;
    }
    this.rates.add(bytes / Math.max(ms - this.latencyMs, ms / 4, 1e-3));
  }
}

/** Bytes moved and time spent by one transfer. */
export interface TransferCost {
  /** Bytes copied (download + upload). */
  readonly bytes: number;
  /** Wall time, ms. */
  readonly ms: number;
}

/** Keeps track of where each storage lives and moves it on demand. */
export class Residency {
  private readonly backends: ReadonlyMap<string, CapableBackend>;
  private readonly clock: Clock;
  private readonly uploadBw = new Map<string, Bandwidth>();
  private readonly downloadBw = new Map<string, Bandwidth>();
  /** Frees replicas of storages the program dropped without dispose(). */
  private readonly finalizer: FinalizationRegistry<Map<string, DeviceBuffer>>;

  constructor(backends: ReadonlyMap<string, CapableBackend>, clock: Clock, priorBytesPerMs: (backend: string) => number) {
    this.backends = backends;
    this.clock = clock;
    for (const name of backends.keys()) {
      this.uploadBw.set(name, new Bandwidth(() => priorBytesPerMs(name)));
      this.downloadBw.set(name, new Bandwidth(() => priorBytesPerMs(name)));
    }
    this.finalizer = new FinalizationRegistry((replicas) => this.freeReplicas(replicas));
  }

  /** Starts tracking a storage so its device memory is freed when it is garbage-collected. */
  track(storage: Storage): void {
    this.finalizer.register(storage, storage.replicas, storage);
  }

  /** Estimated ms to make `storage` resident on `backend` (0 when it already is). */
  estimateMs(storage: Storage, backend: string): number {
    if (storage.replicas.has(backend)) return 0;
    let ms = storage.byteLength / (this.uploadBw.get(backend)?.bytesPerMs ?? Infinity);
    if (storage.host === undefined) {
      const holder = storage.replicas.keys().next();
      if (!holder.done) ms += storage.byteLength / (this.downloadBw.get(holder.value)?.bytesPerMs ?? Infinity);
    }
    return ms;
  }

  /** Estimated ms to copy `bytes` from `backend` to the host: a small copy's time + bytes / bandwidth. */
  downloadEstimateMs(bytes: number, backend: string): number {
    const bw = this.downloadBw.get(backend);
    return bw === undefined ? 0 : bw.latencyMs + bytes / bw.bytesPerMs;
  }

  /** Bytes `backend` would need to allocate to hold `storage` (0 when resident). */
  missingBytes(storage: Storage, backend: string): number {
    return storage.replicas.has(backend) ? 0 : storage.byteLength;
  }

  /** A host copy of the bytes, downloading from a replica (and keeping the copy) if needed. */
  async hostBytes(storage: Storage, spent?: { bytes: number }): Promise<Uint8Array> {
    if (storage.host !== undefined) return storage.host;
    const bytes = await this.download(storage, spent);
    storage.host = bytes;
    return bytes;
  }

  /**
   * The bytes for a tensor read: the host copy when there is one (kept by the storage), else a download that is not
   * kept (the reader owns it and hands it out without a copy; a later upload elsewhere downloads again).
   */
  async bytesForRead(storage: Storage): Promise<{ bytes: Uint8Array; owned: boolean }> {
    if (storage.host !== undefined) return { bytes: storage.host, owned: false };
    return { bytes: await this.download(storage), owned: true };
  }

  /** The bytes downloaded from the first replica that answers (timed: the download bandwidth learns from it). */
  private async download(storage: Storage, spent?: { bytes: number }): Promise<Uint8Array> {
    const failures: string[] = [];
    for (const [name, buffer] of storage.replicas) {
      const backend = this.backends.get(name);
      if (backend === undefined) continue;
      const t0 = this.clock();
      try {
        const bytes = await backend.download(buffer);
        this.downloadBw.get(name)?.observe(bytes.byteLength, this.clock() - t0);
        if (spent !== undefined) spent.bytes += bytes.byteLength;
        return bytes;
      } catch (error) {
        failures.push(`${name}: ${errorMessage(error)}`);
      }
    }
    throw new BackendError('DATA_LOST', failures.length === 0 ? 'none' : 'all', `tensor data (${storage.byteLength} bytes) could not be read from any replica: ${failures.join('; ') || 'no replica left'}`);
  }

  /** Makes `storage` resident on `backend`; concurrent callers share one upload. */
  async ensureOn(storage: Storage, spec: TensorSpec, backend: CapableBackend): Promise<{ buffer: DeviceBuffer; cost: TransferCost }> {
    const existing = storage.replicas.get(backend.name);
    if (existing !== undefined) return { buffer: existing, cost: { bytes: 0, ms: 0 } };
    const inFlight = storage.pending.get(backend.name);
    if (inFlight !== undefined) return { buffer: await inFlight, cost: { bytes: 0, ms: 0 } };
    const t0 = this.clock();
    const spent = { bytes: 0 };
    const upload = (async (): Promise<DeviceBuffer> => {
      const host = await this.hostBytes(storage, spent);
      const t1 = this.clock();
      const buffer = await backend.upload(host, spec);
      this.uploadBw.get(backend.name)?.observe(host.byteLength, this.clock() - t1);
      spent.bytes += host.byteLength;
      return buffer;
    })();
    storage.pending.set(backend.name, upload);
    try {
      const buffer = await upload;
      if (storage.disposed) {
        backend.free(buffer);
        throw new BackendError('DISPOSED', backend.name, 'tensor was disposed during upload');
      }
      storage.replicas.set(backend.name, buffer);
      return { buffer, cost: { bytes: spent.bytes, ms: this.clock() - t0 } };
    } finally {
      storage.pending.delete(backend.name);
    }
  }

  /** Drops the replica a failed backend held (its memory may be gone with the device). */
  forgetReplica(storage: Storage, backend: string): void {
    const buffer = storage.replicas.get(backend);
    if (buffer === undefined) return;
    storage.replicas.delete(backend);
    this.backends.get(backend)?.free(buffer);
  }

  /** Frees every replica of a storage. */
  release(storage: Storage): void {
    this.finalizer.unregister(storage);
    this.freeReplicas(storage.replicas);
  }

  private freeReplicas(replicas: Map<string, DeviceBuffer>): void {
    for (const [name, buffer] of replicas) {
      try {
        this.backends.get(name)?.free(buffer);
      } catch {
        // free() must not throw; a backend that does anyway cannot stop the others from being freed.
      }
    }
    replicas.clear();
  }
}
