// Moves storage between the host and backends, learns how long copies take (copy-times.ts), and frees replicas.
import type { CapableBackend, DeviceBuffer } from './backend.ts';
import type { Clock } from './clock.ts';
import { CopyTimes, type CopyPoint } from './copy-times.ts';
import { BackendError, errorMessage } from './errors.ts';
import type { Storage } from './tensor.ts';
import type { TensorSpec } from './ops.ts';

/** Bytes moved and time spent by one transfer. */
export interface TransferCost {
  /** Bytes copied (download + upload). */
  readonly bytes: number;
  /** Wall time, ms. */
  readonly ms: number;
}

/** What a Residency needs to know. */
export interface ResidencyOptions {
  /** The engine's backends by name. */
  readonly backends: ReadonlyMap<string, CapableBackend>;
  /** Time source of the copies' measurements. */
  readonly clock: Clock;
  /** A backend's transfer rate before any copy is measured, bytes per ms. */
  readonly priorBytesPerMs: (backend: string) => number;
  /** Whether a copy to or from a backend starting now follows its idle time (not learned from); default never. */
  readonly copyIsCold?: (backend: string) => boolean;
}

/** Keeps track of where each storage lives and moves it on demand. */
export class Residency {
  private readonly backends: ReadonlyMap<string, CapableBackend>;
  private readonly clock: Clock;
  private readonly uploadTimes = new Map<string, CopyTimes>();
  private readonly downloadTimes = new Map<string, CopyTimes>();
  /** Whether a copy to or from a backend starting now follows that backend's idle time (its time says how long it took to wake up). */
  private readonly copyIsCold: (backend: string) => boolean;
  /** Frees replicas of storages the program dropped without dispose(). */
  private readonly finalizer: FinalizationRegistry<Map<string, DeviceBuffer>>;

  constructor(options: ResidencyOptions) {
    const { backends, priorBytesPerMs } = options;
    this.backends = backends;
    this.clock = options.clock;
    this.copyIsCold = options.copyIsCold ?? (() => false);
    for (const name of backends.keys()) {
      this.uploadTimes.set(name, new CopyTimes(() => priorBytesPerMs(name)));
      this.downloadTimes.set(name, new CopyTimes(() => priorBytesPerMs(name)));
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
    let ms = this.uploadTimes.get(backend)?.estimateMs(storage.byteLength) ?? 0;
    if (storage.host === undefined) {
      const holder = storage.replicas.keys().next();
      if (!holder.done) ms += this.downloadEstimateMs(storage.byteLength, holder.value);
    }
    return ms;
  }

  /** Estimated ms to copy `bytes` from `backend` to the host (from copies of about that size, see CopyTimes). */
  downloadEstimateMs(bytes: number, backend: string): number {
    return this.downloadTimes.get(backend)?.estimateMs(bytes) ?? 0;
  }

  /** What was learned of `backend`'s copies: per size class, typical bytes and median ms, each way. */
  copyPoints(backend: string): { upload: readonly CopyPoint[]; download: readonly CopyPoint[] } {
    return {
      upload: this.uploadTimes.get(backend)?.points() ?? [],
      download: this.downloadTimes.get(backend)?.points() ?? [],
    };
  }

  /** Seeds `backend`'s copy times from a profile's points (copies measured here then take over: medians). */
  seedCopyPoints(backend: string, upload: readonly CopyPoint[], download: readonly CopyPoint[]): void {
    for (const p of upload) this.uploadTimes.get(backend)?.seed(p);
    for (const p of download) this.downloadTimes.get(backend)?.seed(p);
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
    storage.lineage = undefined;
    return bytes;
  }

  /**
   * The bytes for a tensor read: the host copy when there is one (kept by the storage), else a download that is not
   * kept (the reader owns it and hands it out without a copy; a later upload elsewhere downloads again).
   */
  async bytesForRead(storage: Storage): Promise<{ bytes: Uint8Array; owned: boolean }> {
    if (storage.host !== undefined) return { bytes: storage.host, owned: false };
    const bytes = await this.download(storage);
    return { bytes, owned: bytes !== storage.host };
  }

  /**
   * The bytes downloaded from the first replica that answers (timed: the download bandwidth learns from it). When
   * none answers, an op's output is computed again from its lineage and kept on the host (the failed replicas are
   * dropped); without a lineage, or when recomputing fails, the read rejects with DATA_LOST.
   */
  private async download(storage: Storage, spent?: { bytes: number }): Promise<Uint8Array> {
    if (storage.byteLength === 0) return new Uint8Array(0); // nothing to copy, whatever holds it
    const failures: Array<{ name: string; error: string }> = [];
    for (const [name, buffer] of storage.replicas) {
      const backend = this.backends.get(name);
      if (backend === undefined) continue;
      const cold = this.copyIsCold(name);
      const t0 = this.clock();
      try {
        const bytes = await backend.download(buffer);
        this.downloadTimes.get(name)?.observe(bytes.byteLength, this.clock() - t0, cold);
        if (spent !== undefined) spent.bytes += bytes.byteLength;
        return bytes;
      } catch (error) {
        failures.push({ name, error: errorMessage(error) });
      }
    }
    const why = `tensor data (${storage.byteLength} bytes) could not be read from any replica: ${
      failures.map((f) => `${f.name}: ${f.error}`).join('; ') || 'no replica left'
    }`;
    const lostOn = failures.length === 0 ? 'none' : failures.length === 1 ? (failures[0]?.name ?? 'all') : 'all';
    if (storage.lineage === undefined || storage.disposed) throw new BackendError('DATA_LOST', lostOn, why);
    const bytes = await storage.lineage.recompute(lostOn, why);
    if (storage.disposed) return bytes; // disposed while it was recomputed: the reader still gets its bytes
    for (const { name } of failures) this.forgetReplica(storage, name);
    storage.host = bytes;
    storage.lineage = undefined;
    return bytes;
  }

  /** Makes `storage` resident on `backend`; concurrent callers share one upload. */
  async ensureOn(
    storage: Storage,
    spec: TensorSpec,
    backend: CapableBackend,
  ): Promise<{ buffer: DeviceBuffer; cost: TransferCost }> {
    const existing = storage.replicas.get(backend.name);
    if (existing !== undefined) return { buffer: existing, cost: { bytes: 0, ms: 0 } };
    const inFlight = storage.pending.get(backend.name);
    if (inFlight !== undefined) return { buffer: await inFlight, cost: { bytes: 0, ms: 0 } };
    const t0 = this.clock();
    const spent = { bytes: 0 };
    const upload = (async (): Promise<DeviceBuffer> => {
      const host = await this.hostBytes(storage, spent);
      const cold = this.copyIsCold(backend.name);
      const t1 = this.clock();
      const buffer = await backend.upload(host, spec);
      this.uploadTimes.get(backend.name)?.observe(host.byteLength, this.clock() - t1, cold);
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
    try {
      this.backends.get(backend)?.free(buffer);
    } catch {
      // free() must not throw; a lost device's buffer may be gone already.
    }
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
