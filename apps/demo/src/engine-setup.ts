// The page's engine: the browser defaults of 'tandem' (WASM, WebGPU when navigator.gpu has an adapter, the
// reference), with the WebGPU backend kept at hand so the "Lose the GPU" button can destroy its real device.
/// <reference types="@webgpu/types" />
import { BROWSER_BACKENDS, createEngine, type BackendFactory, type CapableBackend, type Engine } from 'tandem';
import type { WebGpuBackend } from '@tandem/webgpu';

/** What the page knows about WebGPU here. */
export type WebGpuStatus =
  | { readonly available: true; readonly adapter: string }
  | { readonly available: false; readonly reason: string };

/** The engine and the WebGPU backend it schedules over (when there is one). */
export interface DemoEngine {
  /** The engine every panel uses. */
  readonly engine: Engine;
  /** The WebGPU backend, when it was built and found a device. */
  readonly webgpu: WebGpuBackend | undefined;
  /** WebGPU here: the adapter, or why not. */
  readonly webgpuStatus: WebGpuStatus;
}

/** Builds the engine; never throws for a missing backend (the reason goes to telemetry notices and webgpuStatus). */
export async function createDemoEngine(): Promise<DemoEngine> {
  let webgpu: WebGpuBackend | undefined;
  const factories: BackendFactory[] = BROWSER_BACKENDS.map((factory) => {
    if (factory.name !== 'webgpu') return factory;
    return {
      ...factory,
      create: async (options): Promise<CapableBackend> => {
        const backend = await factory.create(options);
        // Loaded by the factory already; imported here too (not statically) so it stays in its own chunk.
        const { WebGpuBackend } = await import('@tandem/webgpu');
        if (backend instanceof WebGpuBackend) webgpu = backend;
        return backend;
      },
    };
  });
  const engine = await createEngine({ factories });
  return { engine, webgpu, webgpuStatus: webgpuStatusOf(engine) };
}

function webgpuStatusOf(engine: Engine): WebGpuStatus {
  const status = engine.backends().find((b) => b.name === 'webgpu');
  if (status?.available === true) return { available: true, adapter: status.device ?? 'unknown adapter' };
  if (status !== undefined) return { available: false, reason: status.unavailableReason ?? 'unknown' };
  const notice = engine.telemetry
    .noticeEvents()
    .find((n) => n.backend === 'webgpu' && n.kind === 'backend-unavailable');
  return { available: false, reason: notice?.detail ?? 'no WebGPU backend' };
}

/** Destroys the WebGPU backend's current device (a real GPUDevice.destroy(), as a driver reset would); false when there is none. */
export function loseGpuDevice(demo: DemoEngine): boolean {
  const device = demo.webgpu?.currentDevice();
  if (device === undefined) return false;
  device.destroy();
  return true;
}
