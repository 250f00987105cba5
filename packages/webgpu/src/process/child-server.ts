// The GPU process's side: one in-process WebGpuBackend (dawn.node), driven by requests from the parent.
// Buffers are keyed by the backend's own DeviceBuffer ids; replies carry results as plain data.
import {
  isOpOver,
  BackendError,
  mapOpTensors,
  type BackendHealth,
  type DeviceBuffer,
  type InitResult,
  type TensorSpec,
} from '@tandem/core';
import type { WebGpuBackend } from '../backend.ts';
import type { DeviceLimits } from '../device-context.ts';
import { BACKEND_NAME } from '../gpu-errors.ts';
import type {
  GpuProcessSetup,
  GpuReply,
  GpuRequest,
  GpuResults,
  RemoteBuffer,
  RemoteDescription,
  RepliedRequestType,
} from './protocol.ts';
import { toWireError } from './wire-errors.ts';
import { isBytes, isIndex, isRecord, isRemoteTensor, isTensorSpec } from './wire-guards.ts';

/** How the server talks to its parent (process.send / process.on('message') in the real child). */
export interface ParentPort {
  /** Sends a reply; `sent` runs once it is written to the channel. */
  send(reply: GpuReply, sent?: () => void): void;
  /** Ends the process (after 'dispose'). */
  exit(code: number): void;
}

/** Builds the in-process backend for a setup, or says why it can't (e.g. SwiftShader missing). */
export type BackendFactory = (setup: GpuProcessSetup) => WebGpuBackend | { readonly failed: string };

const NOT_STARTED: BackendHealth = { state: 'unavailable', reason: 'the GPU process has not initialised WebGPU yet' };

/** Serves requests on one WebGpuBackend. */
export class GpuProcessServer {
  private backend: WebGpuBackend | undefined;
  private setupFailure: string | undefined;
  private readonly buffers = new Map<number, DeviceBuffer>();

  constructor(
    /** Builds the backend on the first 'init'. */
    private readonly createBackend: BackendFactory,
    /** The channel to the parent. */
    private readonly port: ParentPort,
  ) {}

  /** Handles one message from the parent (anything: it is checked first). */
  handle(message: unknown): void {
    const request = parseRequest(message);
    if (typeof request === 'string') {
      const id = isRecord(message) && isIndex(message['id']) ? message['id'] : undefined;
      if (id !== undefined)
        this.replyError(id, new BackendError('BAD_MESSAGE', BACKEND_NAME, `GPU process: ${request}`));
      else process.stderr.write(`[gpu-process] ignored a message: ${request}\n`);
      return;
    }
    if (request.type === 'free') {
      this.free(request.buffer);
      return;
    }
    void this.serve(request);
  }

  private async serve(request: Exclude<GpuRequest, { type: 'free' }>): Promise<void> {
    try {
      const result = await this.answer(request);
      if (request.type === 'dispose') this.port.send(this.ok(request.id, result), () => this.port.exit(0));
      else this.port.send(this.ok(request.id, result));
    } catch (error) {
      this.replyError(request.id, error);
    }
  }

  private async answer(request: Exclude<GpuRequest, { type: 'free' }>): Promise<GpuResults[RepliedRequestType]> {
    switch (request.type) {
      case 'init':
        return this.init(request.setup);
      case 'describe':
        return this.describe();
      case 'upload':
        return this.remember(await this.ready('upload').upload(request.data, request.spec));
      case 'download':
        return this.ready('download').download(this.buffer(request.buffer, 'download'));
      case 'run': {
        const backend = this.ready(request.op.op);
        const op = mapOpTensors(request.op, (t, name) => ({
          dtype: t.dtype,
          shape: t.shape,
          buffer: this.buffer(t.buffer, `${request.op.op}.${name}`),
        }));
        const result = await backend.run(op, request.outputs);
        return { outputs: result.outputs.map((b) => this.remember(b)), kernelMs: result.kernelMs };
      }
      case 'health':
        return null;
      case 'dispose':
        this.buffers.clear();
        await this.backend?.dispose();
        return null;
    }
  }

  private async init(setup: GpuProcessSetup): Promise<InitResult> {
    if (this.setupFailure !== undefined) return { ok: false, reason: this.setupFailure };
    if (this.backend === undefined) {
      const created = this.createBackend(setup);
      if ('failed' in created) {
        this.setupFailure = created.failed;
        return { ok: false, reason: created.failed };
      }
      this.backend = created;
    }
    return this.backend.init();
  }

  private describe(): RemoteDescription {
    const backend = this.ready('describe');
    const limits = backend.currentDevice()?.limits;
    return { description: backend.describe(), limits: limits === undefined ? undefined : plainLimits(limits) };
  }

  private ready(what: string): WebGpuBackend {
    if (this.backend === undefined)
      throw new BackendError('UNAVAILABLE', BACKEND_NAME, `${what}: the GPU process was not initialised`);
    return this.backend;
  }

  private remember(buffer: DeviceBuffer): RemoteBuffer {
    this.buffers.set(buffer.id, buffer);
    return { id: buffer.id, byteLength: buffer.byteLength };
  }

  private buffer(id: number, what: string): DeviceBuffer {
    const buffer = this.buffers.get(id);
    if (buffer === undefined)
      throw new BackendError(
        'UNKNOWN_BUFFER',
        BACKEND_NAME,
        `${what}: buffer ${id} is unknown to the GPU process or was freed`,
      );
    return buffer;
  }

  private free(id: number): void {
    const buffer = this.buffers.get(id);
    if (buffer === undefined) return;
    this.buffers.delete(id);
    this.backend?.free(buffer);
  }

  private health(): BackendHealth {
    return (
      this.backend?.health() ??
      (this.setupFailure === undefined ? NOT_STARTED : { state: 'unavailable', reason: this.setupFailure })
    );
  }

  private ok(id: number, result: unknown): GpuReply {
    return { id, ok: true, result, health: this.health() };
  }

  private replyError(id: number, error: unknown): void {
    this.port.send({ id, ok: false, error: toWireError(error), health: this.health() });
  }
}

/** The limits the parent's supportsOp needs, copied out of the device's GPUSupportedLimits. */
function plainLimits(limits: GPUSupportedLimits): DeviceLimits {
  return {
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    maxBufferSize: limits.maxBufferSize,
    maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
    maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
    maxComputeInvocationsPerWorkgroup: limits.maxComputeInvocationsPerWorkgroup,
    maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
  };
}

function isSetup(value: unknown): value is GpuProcessSetup {
  if (!isRecord(value) || typeof value['swiftShader'] !== 'boolean') return false;
  const flags = value['dawnFlags'];
  const power = value['powerPreference'];
  const pooled = value['maxPooledBytes'];
  return (
    (flags === undefined || (Array.isArray(flags) && flags.every((f) => typeof f === 'string'))) &&
    (power === undefined || power === 'low-power' || power === 'high-performance') &&
    (pooled === undefined || isIndex(pooled))
  );
}

/** The request a message carries, or what is wrong with it. */
export function parseRequest(message: unknown): GpuRequest | string {
  if (!isRecord(message)) return 'not an object';
  const type = message['type'];
  if (type === 'free')
    return isIndex(message['buffer']) ? { type, buffer: message['buffer'] } : 'free without a buffer id';
  const id = message['id'];
  if (!isIndex(id)) return `request '${String(type)}' without an id`;
  switch (type) {
    case 'init':
      return isSetup(message['setup']) ? { type, id, setup: message['setup'] } : 'init with a malformed setup';
    case 'describe':
    case 'health':
    case 'dispose':
      return { type, id };
    case 'upload': {
      const data = message['data'];
      const spec = message['spec'];
      return isBytes(data) && isTensorSpec(spec) ? { type, id, data, spec } : 'upload without bytes or a tensor spec';
    }
    case 'download':
      return isIndex(message['buffer']) ? { type, id, buffer: message['buffer'] } : 'download without a buffer id';
    case 'run': {
      const op = message['op'];
      const outputs = message['outputs'];
      if (!isOpOver(op, isRemoteTensor))
        return `run with a malformed op (op id ${String(isRecord(op) ? op['op'] : op)})`;
      if (!Array.isArray(outputs) || !outputs.every(isTensorSpec)) return 'run without output specs';
      const specs: TensorSpec[] = outputs;
      return { type, id, op, outputs: specs };
    }
    default:
      return `unknown request type '${String(type)}'`;
  }
}
