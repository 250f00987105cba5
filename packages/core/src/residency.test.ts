import { describe, expect, it } from 'vitest';
import type { CapableBackend, DeviceBuffer } from './backend.ts';
import { BackendError } from './errors.ts';
import { Residency } from './residency.ts';
import { Storage } from './tensor.ts';

/** A device whose copies take `uploadMs` on the shared clock; uploads wait for `gate` when set. */
class FakeDevice {
  uploads = 0;
  readonly freed: DeviceBuffer[] = [];
  gate: Promise<void> | undefined;
  failDownloads = false;
  private nextId = 1;

  constructor(
    readonly name: string,
    private readonly clock: { now: number },
    private readonly uploadMs = 0,
  ) {}

  async upload(data: Uint8Array): Promise<DeviceBuffer> {
    this.uploads++;
    if (this.gate !== undefined) await this.gate;
    this.clock.now += this.uploadMs;
    return { backend: this.name, id: this.nextId++, byteLength: data.byteLength };
  }

  async download(buffer: DeviceBuffer): Promise<Uint8Array> {
    if (this.failDownloads) throw new Error('device unreachable');
    return new Uint8Array(buffer.byteLength);
  }

  free(buffer: DeviceBuffer): void {
    this.freed.push(buffer);
  }
}

function setup(uploadMs = 0) {
  const clock = { now: 100 }; // not 0: a cost measured from the wrong origin shows
  const gpu = new FakeDevice('gpu', clock, uploadMs);
  const residency = new Residency({
    backends: new Map([['gpu', gpu as unknown as CapableBackend]]),
    clock: () => clock.now,
    priorBytesPerMs: () => 1e6,
  });
  const spec = { dtype: 'f32', shape: [4] } as const;
  const storage = new Storage('f32', 16, new Uint8Array(16));
  return { clock, gpu, residency, spec, storage, backend: gpu as unknown as CapableBackend };
}

describe('Residency', () => {
  it('times an upload from its start: the cost is the copy, in bytes and ms', async () => {
    const { residency, spec, storage, backend } = setup(3);
    const { cost } = await residency.ensureOn(storage, spec, backend);
    expect(cost).toEqual({ bytes: 16, ms: 3 });
    expect(storage.residency()).toEqual(['host', 'gpu']);
    expect((await residency.ensureOn(storage, spec, backend)).cost).toEqual({ bytes: 0, ms: 0 }); // resident
  });

  it('shares one upload between concurrent callers', async () => {
    const { gpu, residency, spec, storage, backend } = setup(3);
    const [first, second] = await Promise.all([
      residency.ensureOn(storage, spec, backend),
      residency.ensureOn(storage, spec, backend),
    ]);
    expect(gpu.uploads).toBe(1);
    expect(second.buffer).toBe(first.buffer);
    expect([first.cost.bytes, second.cost.bytes]).toEqual([16, 0]); // the copy is counted once
    expect(gpu.freed).toEqual([]);
  });

  it('frees the copy of a storage disposed while it was uploading, and rejects with DISPOSED', async () => {
    const { gpu, residency, spec, storage, backend } = setup();
    let open = (): void => undefined;
    gpu.gate = new Promise((resolve) => {
      open = resolve;
    });
    const upload = residency.ensureOn(storage, spec, backend);
    storage.disposed = true; // what Tensor.dispose() does, with release()
    residency.release(storage);
    open();
    const error = await upload.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'DISPOSED', backend: 'gpu' });
    expect(String(error)).toMatch(/tensor was disposed during upload/);
    expect(gpu.freed.map((b) => b.id)).toEqual([1]);
    expect(storage.replicas.size).toBe(0);
  });

  it('forgetReplica() drops and frees the copy a failed backend held, and ignores one it does not hold', () => {
    const { gpu, residency, storage } = setup();
    const buffer = { backend: 'gpu', id: 7, byteLength: 16 };
    storage.replicas.set('gpu', buffer);
    residency.forgetReplica(storage, 'gpu');
    expect(storage.residency()).toEqual(['host']);
    expect(gpu.freed).toEqual([buffer]);
    residency.forgetReplica(storage, 'gpu');
    expect(gpu.freed).toEqual([buffer]);
  });

  it('rejects a read with DATA_LOST, naming the backend, when no replica answers and nothing can recompute it', async () => {
    const { gpu, residency } = setup();
    const storage = new Storage('f32', 16, undefined); // an op's output, no lineage
    storage.replicas.set('gpu', { backend: 'gpu', id: 1, byteLength: 16 });
    gpu.failDownloads = true;
    const error = await residency.bytesForRead(storage).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'DATA_LOST', backend: 'gpu' });
    expect(String(error)).toMatch(
      /tensor data \(16 bytes\) could not be read from any replica: gpu: device unreachable/,
    );
  });
});
