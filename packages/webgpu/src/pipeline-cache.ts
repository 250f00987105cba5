// Compute pipelines, created once per (kernel, override values) on one device. Layouts are explicit, built
// from the kernel spec, so a shader whose bindings drift from the spec fails at pipeline creation.
import { COMPUTE_STAGE } from './gpu-constants.ts';
import type { KernelSpec } from './kernel-spec.ts';
import type { ShaderName } from './wgsl-kernels.generated.ts';

/** Override constant values for one pipeline. */
export type OverrideValues = Readonly<Record<string, number>>;

/** A ready pipeline and the layout its bind groups must use. */
export interface CachedPipeline {
  /** The compute pipeline. */
  readonly pipeline: GPUComputePipeline;
  /** Layout of bind group 0. */
  readonly bindGroupLayout: GPUBindGroupLayout;
}

/** The cache key of a kernel with override values: shader, entry point and the sorted overrides. */
export function pipelineKey(spec: KernelSpec, overrides: OverrideValues): string {
  const sorted = Object.keys(overrides)
    .sort()
    .map((name) => `${name}=${overrides[name]}`);
  return `${spec.shader}:${spec.entryPoint}:${sorted.join(',')}`;
}

/** Pipelines and shader modules of one device. */
export class PipelineCache {
  private readonly modules = new Map<ShaderName, GPUShaderModule>();
  private readonly layouts = new Map<ShaderName, GPUBindGroupLayout>();
  private readonly pipelines = new Map<string, CachedPipeline>();

  constructor(private readonly device: GPUDevice) {}

  /** The pipeline for a kernel with these overrides; creation errors surface in the caller's error scope. */
  get(spec: KernelSpec, overrides: OverrideValues): CachedPipeline {
    const key = pipelineKey(spec, overrides);
    const cached = this.pipelines.get(key);
    if (cached !== undefined) return cached;
    const bindGroupLayout = this.layout(spec);
    const pipeline = this.device.createComputePipeline({
      label: key,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: [bindGroupLayout] }),
      compute: { module: this.module(spec), entryPoint: spec.entryPoint, constants: overrides },
    });
    const entry = { pipeline, bindGroupLayout };
    this.pipelines.set(key, entry);
    return entry;
  }

  /** Drops a pipeline whose creation failed, so the next call retries. */
  forget(spec: KernelSpec, overrides: OverrideValues): void {
    this.pipelines.delete(pipelineKey(spec, overrides));
  }

  /** How many pipelines are cached. */
  get size(): number {
    return this.pipelines.size;
  }

  private module(spec: KernelSpec): GPUShaderModule {
    let module = this.modules.get(spec.shader);
    if (module === undefined) {
      module = this.device.createShaderModule({ label: spec.shader, code: spec.source });
      this.modules.set(spec.shader, module);
    }
    return module;
  }

  private layout(spec: KernelSpec): GPUBindGroupLayout {
    let layout = this.layouts.get(spec.shader);
    if (layout === undefined) {
      const entries: GPUBindGroupLayoutEntry[] = spec.bindings.map((binding, i) => ({
        binding: i,
        visibility: COMPUTE_STAGE,
        buffer: { type: binding.access === 'read' ? 'read-only-storage' : 'storage' },
      }));
      entries.push({ binding: spec.bindings.length, visibility: COMPUTE_STAGE, buffer: { type: 'uniform' } });
      layout = this.device.createBindGroupLayout({ label: spec.shader, entries });
      this.layouts.set(spec.shader, layout);
    }
    return layout;
  }
}
