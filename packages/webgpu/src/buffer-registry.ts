// The backend's handles: DeviceBuffer ids -> the GPU buffer, its tensor spec and the device it lives on.
import { BackendError, type DeviceBuffer, type TensorSpec } from '@tandem/core';
import type { DeviceContext } from './device-context.ts';
import { BACKEND_NAME, deviceLost } from './gpu-errors.ts';

/** One live tensor buffer. */
export interface BufferRecord {
  /** The handle given to the engine. */
  readonly handle: DeviceBuffer;
  /** What the bytes are (download converts back to this dtype). */
  readonly spec: TensorSpec;
  /** The device buffer (pooled: may be larger than the tensor). */
  readonly gpu: GPUBuffer;
  /** The device it was created on. */
  readonly context: DeviceContext;
}

/** Handles of one backend instance. */
export class BufferRegistry {
  private readonly records = new Map<number, BufferRecord>();
  private nextId = 1;

  /** Registers a buffer and returns its handle; `byteLength` is the host-visible size. */
  add(gpu: GPUBuffer, spec: TensorSpec, byteLength: number, context: DeviceContext): DeviceBuffer {
    const handle: DeviceBuffer = { backend: BACKEND_NAME, id: this.nextId++, byteLength };
    this.records.set(handle.id, { handle, spec, gpu, context });
    return handle;
  }

  /** The record of a handle that must be usable on `context`; throws a BackendError otherwise. */
  resolve(handle: DeviceBuffer, what: string, context: DeviceContext): BufferRecord {
    const record = this.lookup(handle, what);
    if (record.context !== context || record.context.lostReason !== undefined) {
      throw deviceLost(
        what,
        `buffer ${handle.id} was on a device that is gone (${record.context.lostReason ?? 'replaced'}); upload it again`,
      );
    }
    return record;
  }

  /** The record of a handle, on whatever device; throws a BackendError for unknown or foreign handles. */
  lookup(handle: DeviceBuffer, what: string): BufferRecord {
    if (handle.backend !== BACKEND_NAME) {
      throw new BackendError(
        'UNKNOWN_BUFFER',
        BACKEND_NAME,
        `${what}: buffer ${handle.id} belongs to backend '${handle.backend}'`,
      );
    }
    const record = this.records.get(handle.id);
    if (record === undefined)
      throw new BackendError('UNKNOWN_BUFFER', BACKEND_NAME, `${what}: buffer ${handle.id} is unknown or was freed`);
    return record;
  }

  /** Removes a handle, returning its record (undefined if unknown). */
  remove(handle: DeviceBuffer): BufferRecord | undefined {
    const record = this.records.get(handle.id);
    if (record !== undefined && record.handle.backend === handle.backend) this.records.delete(handle.id);
    return record;
  }

  /** Removes and returns every record. */
  drain(): BufferRecord[] {
    const all = [...this.records.values()];
    this.records.clear();
    return all;
  }

  /** Live handles. */
  get size(): number {
    return this.records.size;
  }
}
