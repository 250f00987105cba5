// The messages between the proxy (parent) and the GPU process (child), over Node's IPC channel with
// 'advanced' serialization (structured clone: Uint8Array bytes travel as binary, no base64, no JSON).
// Every request but 'free' carries an id and gets exactly one reply with that id; every reply carries the
// child backend's health, so the proxy's synchronous health() stays current.
import type { BackendHealth, DeviceDescription, InitResult, Op, TensorSpec } from '@tandem/core';
import type { DeviceLimits } from '../device-context.ts';

/** A tensor inside a 'run' request: its spec and the id of the child's buffer holding it. */
export interface RemoteTensor extends TensorSpec {
  /** Buffer id in the child (the in-process backend's DeviceBuffer.id). */
  readonly buffer: number;
}

/** How the child sets up WebGPU; sent with 'init'. */
export interface GpuProcessSetup {
  /** Point Dawn at SwiftShader (Debian's chromium package) before loading it. */
  readonly swiftShader: boolean;
  /** Dawn flags for create(); absent means the in-process default (DEFAULT_DAWN_FLAGS). */
  readonly dawnFlags?: readonly string[];
  /** Adapter preference; absent means 'high-performance'. */
  readonly powerPreference?: 'low-power' | 'high-performance';
  /** Most bytes of freed buffers the child's pool keeps; absent means the backend's default. */
  readonly maxPooledBytes?: number;
}

/** Parent -> child. */
export type GpuRequest =
  | { readonly type: 'init'; readonly id: number; readonly setup: GpuProcessSetup }
  | { readonly type: 'describe'; readonly id: number }
  | { readonly type: 'upload'; readonly id: number; readonly data: Uint8Array; readonly spec: TensorSpec }
  | { readonly type: 'download'; readonly id: number; readonly buffer: number }
  | {
      readonly type: 'run';
      readonly id: number;
      readonly op: Op<RemoteTensor>;
      readonly outputs: readonly TensorSpec[];
    }
  | { readonly type: 'health'; readonly id: number }
  | { readonly type: 'dispose'; readonly id: number }
  | { readonly type: 'free'; readonly buffer: number };

/** The request types that get a reply. */
export type RepliedRequestType = Exclude<GpuRequest['type'], 'free'>;

/** What the child says about its device: the in-process description plus the limits supportsOp needs. */
export interface RemoteDescription {
  /** describe() of the child's WebGpuBackend, as plain data. */
  readonly description: DeviceDescription & {
    readonly maxStorageBufferBindingSize: number;
    readonly maxBufferSize: number;
    readonly software: boolean;
  };
  /** Limits of the child's device; absent before a device exists. */
  readonly limits: DeviceLimits | undefined;
}

/** A buffer the child created: its id there and its host-visible size. */
export interface RemoteBuffer {
  /** Buffer id in the child. */
  readonly id: number;
  /** Host-visible size in bytes (DeviceBuffer.byteLength). */
  readonly byteLength: number;
}

/** The result of each replied request, by type. */
export interface GpuResults {
  /** init(): the child's InitResult. */
  readonly init: InitResult;
  /** describe(): description and limits. */
  readonly describe: RemoteDescription;
  /** upload(): the new buffer. */
  readonly upload: RemoteBuffer;
  /** download(): the bytes. */
  readonly download: Uint8Array;
  /** run(): output buffers and the kernel time the child measured. */
  readonly run: { readonly outputs: readonly RemoteBuffer[]; readonly kernelMs: number };
  /** health(): a ping; the health rides on every reply anyway. */
  readonly health: null;
  /** dispose(): the child exits right after replying. */
  readonly dispose: null;
}

/** An error thrown in the child, as data; the parent turns it back into the matching BackendError subclass. */
export interface WireError {
  /** Class name (BackendError, DeviceLostError, OutOfMemoryError, InvalidArgumentError, Error, ...). */
  readonly name: string;
  /** TandemError.code when it had one. */
  readonly code: string | undefined;
  /** The full message, backend prefix included. */
  readonly message: string;
  /** OutOfMemoryError.requestedBytes. */
  readonly requestedBytes: number | undefined;
  /** OutOfMemoryError.limitBytes. */
  readonly limitBytes: number | undefined;
  /** InvalidArgumentError.argument. */
  readonly argument: string | undefined;
  /** InvalidArgumentError.value, printable. */
  readonly value: string | number | boolean | readonly number[] | undefined;
  /** InvalidArgumentError.limit. */
  readonly limit: string | undefined;
}

/** Child -> parent: one reply per replied request. */
export type GpuReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown; readonly health: BackendHealth }
  | { readonly id: number; readonly ok: false; readonly error: WireError; readonly health: BackendHealth };
