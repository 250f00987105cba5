import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

function setup(uploadMs = 0, priorBytesPerMs = 1e6) {
  const clock = { now: 100 }; // not 0: a cost measured from the wrong origin shows
  const gpu = new FakeDevice('gpu', clock, uploadMs);
  const gpu2 = new FakeDevice('gpu2', clock, uploadMs);
  const residency = new Residency({
    backends: new Map([
      ['gpu', gpu as unknown as CapableBackend],
      ['gpu2', gpu2 as unknown as CapableBackend],
    ]),
    clock: () => clock.now,
    priorBytesPerMs: () => priorBytesPerMs,
  });
  const spec = { dtype: 'f32', shape: [4] } as const;
  const storage = new Storage('f32', 16, new Uint8Array(16));
  return { clock, gpu, gpu2, residency, spec, storage, backend: gpu as unknown as CapableBackend };
}

/** A storage with no host copy (an op's output) held by `replicas` only, 16 bytes. */
function deviceOnly(...replicas: string[]): Storage {
  const storage = new Storage('f32', 16, undefined);
  for (const [i, name] of replicas.entries())
    storage.replicas.set(name, { backend: name, id: 100 + i, byteLength: 16 });
  return storage;
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

describe('Residency: copy times, estimates and reads', () => {
  it('learns copy times by default: without copyIsCold no copy counts as cold (the first of a size is skipped)', async () => {
    const { residency, spec, backend } = setup(3);
    for (let i = 0; i < 2; i++) await residency.ensureOn(new Storage('f32', 16, new Uint8Array(16)), spec, backend);
    expect(residency.copyPoints('gpu')).toEqual({ upload: [{ bytes: 16, ms: 3 }], download: [] });
  });

  it("learns a profile's copy points at once, on a fresh residency too; the first copy here is still skipped", async () => {
    const { residency, spec, backend } = setup(3);
    residency.seedCopyPoints('gpu', [{ bytes: 16, ms: 5 }], [{ bytes: 16, ms: 7 }]);
    expect(residency.copyPoints('gpu')).toEqual({ upload: [{ bytes: 16, ms: 5 }], download: [{ bytes: 16, ms: 7 }] });
    await residency.ensureOn(new Storage('f32', 16, new Uint8Array(16)), spec, backend); // allocates: not learned
    expect(residency.copyPoints('gpu').upload).toEqual([{ bytes: 16, ms: 5 }]);
    for (let i = 0; i < 2; i++) await residency.ensureOn(new Storage('f32', 16, new Uint8Array(16)), spec, backend);
    expect(residency.copyPoints('gpu').upload).toEqual([{ bytes: 16, ms: 3 }]); // copies here take over: median of 5, 3, 3
  });

  it('prices an upload from the host copy when there is one, and adds the download when a device holds the only copy', () => {
    const { residency, storage } = setup(0, 1); // nothing measured: 1 byte per ms each way
    storage.replicas.set('gpu', { backend: 'gpu', id: 1, byteLength: 16 });
    expect(residency.estimateMs(storage, 'gpu2')).toBe(16);
    expect(residency.estimateMs(storage, 'gpu')).toBe(0); // resident
    expect(residency.estimateMs(deviceOnly('gpu'), 'gpu2')).toBe(32);
  });

  it('knows nothing of a backend it was not built with: no copy times, no estimates, nothing seeded, still uploads', async () => {
    const { clock, residency, spec, storage } = setup(0, 1);
    expect(residency.copyPoints('ghost')).toEqual({ upload: [], download: [] });
    expect(residency.estimateMs(storage, 'ghost')).toBe(0);
    expect(residency.downloadEstimateMs(16, 'ghost')).toBe(0);
    residency.seedCopyPoints('ghost', [{ bytes: 16, ms: 5 }], [{ bytes: 16, ms: 7 }]);
    expect(residency.copyPoints('ghost')).toEqual({ upload: [], download: [] });
    const ghost = new FakeDevice('ghost', clock, 2);
    const { cost } = await residency.ensureOn(storage, spec, ghost as unknown as CapableBackend);
    expect(cost).toEqual({ bytes: 16, ms: 2 });
    expect(storage.residency()).toEqual(['host', 'ghost']);
  });

  it("rejects a read with DATA_LOST on no backend ('none') when no replica is on a backend it knows", async () => {
    const { residency } = setup();
    const error = await residency.bytesForRead(deviceOnly('ghost')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'DATA_LOST', backend: 'none' });
    expect(String(error)).toMatch(/tensor data \(16 bytes\) could not be read from any replica: no replica left$/);
  });

  it("rejects a read with DATA_LOST on 'all' when every replica fails, naming each failure", async () => {
    const { gpu, gpu2, residency } = setup();
    gpu.failDownloads = true;
    gpu2.failDownloads = true;
    const error = await residency.bytesForRead(deviceOnly('gpu', 'gpu2')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DATA_LOST', backend: 'all' });
    expect(String(error)).toMatch(/any replica: gpu: device unreachable; gpu2: device unreachable$/);
  });

  it('keeps recomputed bytes on the host (the reader does not own them) and drops the replica that failed', async () => {
    const { gpu, residency } = setup();
    gpu.failDownloads = true;
    const storage = deviceOnly('gpu');
    const recomputed = new Uint8Array(16).fill(7);
    const lostOn: string[] = [];
    storage.lineage = {
      recompute: async (backend) => {
        lostOn.push(backend);
        return recomputed;
      },
    };
    const read = await residency.bytesForRead(storage);
    expect(read).toEqual({ bytes: recomputed, owned: false });
    expect(lostOn).toEqual(['gpu']);
    expect(storage.residency()).toEqual(['host']);
    expect(storage.host).toBe(recomputed);
    expect(gpu.freed.map((b) => b.id)).toEqual([100]);
  });

  it('gives a reader the recomputed bytes of a storage disposed meanwhile, without keeping them on the storage', async () => {
    const { gpu, residency } = setup();
    gpu.failDownloads = true;
    const storage = deviceOnly('gpu');
    const recomputed = new Uint8Array(16).fill(7);
    storage.lineage = {
      recompute: async () => {
        storage.disposed = true; // what Tensor.dispose() does, with release()
        residency.release(storage);
        return recomputed;
      },
    };
    expect((await residency.bytesForRead(storage)).bytes).toBe(recomputed);
    expect(storage.residency()).toEqual([]);
  });

  it('frees the device copies of a tracked storage the program dropped without dispose(), once it is collected', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { gpu, residency } = setup();
    (() => {
      const dropped = deviceOnly('gpu');
      residency.track(dropped);
    })();
    for (let i = 0; i < 20 && gpu.freed.length === 0; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 0)); // finalizers run in a task after the collection
    }
    expect(gpu.freed.map((b) => b.id)).toEqual([100]);
  });
});
