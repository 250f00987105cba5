// Options of the GPU-process backend and what its describe() returns.
import type { WebGpuDeviceDescription } from '../backend.ts';

/** Options of createProcessWebGpuBackend. */
export interface ProcessWebGpuOptions {
  /** Run Dawn on SwiftShader (Debian's chromium package) in the child (default false: the machine's GPU). */
  readonly swiftShader?: boolean;
  /** Dawn flags for create() in the child (default: the in-process default). */
  readonly dawnFlags?: readonly string[];
  /** Adapter preference (default 'high-performance'). */
  readonly powerPreference?: 'low-power' | 'high-performance';
  /** Most bytes of freed buffers the child keeps for reuse (default: the in-process default, 256 MiB). */
  readonly maxPooledBytes?: number;
  /** Scheduling priority (default 20, as in-process). */
  readonly priority?: number;
  /** The child's entry file (default: $TANDEM_GPU_PROCESS_ENTRY, then gpu-process-child.mjs, then child-entry.ts). */
  readonly entry?: string | URL;
  /** Extra Node flags for the child. */
  readonly execArgv?: readonly string[];
  /** The child's environment (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** 'forward' (default) copies the child's stderr here, prefixed; 'capture' keeps only its tail for errors. */
  readonly stderr?: 'forward' | 'capture';
  /** How long init() waits for a new GPU process to start WebGPU before killing it, ms (default 30,000). */
  readonly initTimeoutMs?: number;
  /** How long dispose() waits for the child to exit before SIGKILL, ms (default 5,000). */
  readonly closeGraceMs?: number;
  /** Host <-> child bandwidth of the IPC channel for the cost prior, bytes/ms (default 1e6, measured here). */
  readonly ipcBytesPerMs?: number;
}

/** describe() of the proxy: the child's device description plus the process serving it. */
export interface ProcessDeviceDescription extends WebGpuDeviceDescription {
  /** Process id of the GPU process (undefined while none runs). */
  readonly processId: number | undefined;
}
