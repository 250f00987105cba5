// WebGPU seen through Proxies that add a fault a real driver could have (a shader that fails to compile, a device
// with smaller limits), and the WebGPU backend the tests build on them: every backend of a test process shares one
// dawn.node instance (createNodeGpu keeps one per process).
import type { BoundTensor, Op, RunResult, TensorSpec } from '@tandem/core';
import { WebGpuBackend } from '@tandem/webgpu';
import { createNodeGpu, createThrottledWaiter } from '@tandem/webgpu/node';

/**
 * A WebGPU backend on this process's one dawn.node instance, optionally seen through `wrap` (a GPU with a fault).
 */
export function webGpuBackend(wrap: (gpu: GPU) => GPU = (gpu) => gpu): WebGpuBackend {
  return new WebGpuBackend({
    gpu: async () => wrap(await createNodeGpu()),
    waiter: createThrottledWaiter(),
  });
}

/** Binds every function of a WebGPU object to it, so a Proxy can stand in for a native object. */
export function passThrough<T extends object>(target: T, override: (prop: string | symbol) => unknown): T {
  return new Proxy(target, {
    get(t, prop) {
      const replaced = override(prop);
      if (replaced !== undefined) return replaced;
      const value: unknown = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
    set(t, prop, value) {
      return Reflect.set(t, prop, value, t); // native setters (onuncapturederror) need the real object as `this`
    },
  });
}

/** A GPU whose devices fail to compile the named shader (WGSL with a syntax error), as a driver bug would. */
export function gpuWithBrokenShader(gpu: GPU, shaders: readonly string[]): GPU {
  const device = (real: GPUDevice): GPUDevice =>
    passThrough(real, (prop) =>
      prop === 'createShaderModule'
        ? (descriptor: GPUShaderModuleDescriptor) =>
            real.createShaderModule(
              shaders.includes(descriptor.label ?? '') ? { ...descriptor, code: 'fn broken( {' } : descriptor,
            )
        : undefined,
    );
  const adapter = (real: GPUAdapter): GPUAdapter =>
    passThrough(real, (prop) =>
      prop === 'requestDevice' ? async (d?: GPUDeviceDescriptor) => device(await real.requestDevice(d)) : undefined,
    );
  return passThrough(gpu, (prop) =>
    prop === 'requestAdapter'
      ? async (o?: GPURequestAdapterOptions) => {
          const real = await gpu.requestAdapter(o);
          return real === null ? null : adapter(real);
        }
      : undefined,
  );
}

/** A GPU whose adapters report smaller storage limits (a smaller device), so the backend plans with those. */
export function gpuWithLimits(gpu: GPU, limits: { maxStorageBufferBindingSize: number; maxBufferSize: number }): GPU {
  const adapter = (real: GPUAdapter): GPUAdapter =>
    passThrough(real, (prop) =>
      prop === 'limits'
        ? passThrough(real.limits, (key) =>
            key === 'maxStorageBufferBindingSize' || key === 'maxBufferSize' ? limits[key] : undefined,
          )
        : undefined,
    );
  return passThrough(gpu, (prop) =>
    prop === 'requestAdapter'
      ? async (o?: GPURequestAdapterOptions) => {
          const real = await gpu.requestAdapter(o);
          return real === null ? null : adapter(real);
        }
      : undefined,
  );
}

/**
 * A WebGPU backend (on this process's dawn.node) whose run number `held` waits, before it starts, until release():
 * a GPU op that hangs exactly as long as the test says, so a deadline fires at a known point and the late result
 * arrives when the test lets it.
 */
export class HeldWebGpuBackend extends WebGpuBackend {
  /** Resolves once the held run is waiting. */
  readonly holding: Promise<void>;
  private runs = 0;
  private markHolding: () => void = () => undefined;
  private releaseGate: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.releaseGate = resolve));

  /** Holds run number `held` (1-based). */
  constructor(private readonly held: number) {
    super({ gpu: createNodeGpu, waiter: createThrottledWaiter() });
    this.holding = new Promise((resolve) => (this.markHolding = resolve));
  }

  /** Runs the op; the held run first waits for release(). */
  override async run(op: Op<BoundTensor>, outputs: readonly TensorSpec[]): Promise<RunResult> {
    if (++this.runs === this.held) {
      this.markHolding();
      await this.gate;
    }
    return super.run(op, outputs);
  }

  /** Lets the held run go on. */
  release(): void {
    this.releaseGate();
  }
}
