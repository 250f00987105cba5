// How the TypeScript side describes one WGSL kernel: its bindings, uniform parameters and override constants, as
// reflected from the shader at embed time (tools/embed-wgsl.ts writes them to wgsl-kernels.generated.ts).
import type { ShaderName } from './wgsl-kernels.generated.ts';

/** How a storage binding is declared in WGSL. */
export type StorageAccess = 'read' | 'read_write';

/** One storage buffer binding; its @binding index is its position in KernelSpec.bindings. */
export interface BindingSpec<B extends string = string> {
  /** The WGSL variable name. */
  readonly name: B;
  /** var<storage, read> or var<storage, read_write>. */
  readonly access: StorageAccess;
}

/** Scalar types a uniform parameter can have (every field is 4 bytes, so offsets are 4 * index). */
export type ParamType = 'u32' | 'i32' | 'f32';

/** One field of the kernel's `struct Params`, bound as var<uniform> params after the storage bindings. */
export interface ParamSpec<P extends string = string> {
  /** The WGSL field name. */
  readonly name: P;
  /** Its WGSL type. */
  readonly type: ParamType;
}

/** One kernel: a .wgsl file, its entry point, and what the host must bind and set. */
export interface KernelSpec<B extends string = string, P extends string = string, O extends string = string> {
  /** File name in wgsl/ (or wgsl/shared/) without .wgsl. */
  readonly shader: ShaderName;
  /** The @compute function. */
  readonly entryPoint: string;
  /** Storage bindings in @binding order, starting at 0. */
  readonly bindings: readonly BindingSpec<B>[];
  /** Fields of `struct Params`, in order; bound at @binding(bindings.length). */
  readonly params: readonly ParamSpec<P>[];
  /** Override constants the host may set. */
  readonly overrides: readonly O[];
  /** The WGSL source, includes expanded. */
  readonly source: string;
}

/** Bytes of a kernel's uniform block: 4 per field, rounded up to 16 (uniform buffers' granularity). */
export function paramsByteLength(spec: KernelSpec): number {
  return Math.max(16, Math.ceil((spec.params.length * 4) / 16) * 16);
}

/** Packs parameter values into the uniform block's bytes, in field order. */
export function packParams<P extends string>(
  spec: KernelSpec<string, P>,
  values: Readonly<Record<P, number>>,
): ArrayBuffer {
  const bytes = new ArrayBuffer(paramsByteLength(spec));
  const view = new DataView(bytes);
  spec.params.forEach((field, i) => {
    const value = values[field.name];
    if (field.type === 'f32') view.setFloat32(i * 4, value, true);
    else if (field.type === 'i32') view.setInt32(i * 4, value, true);
    else view.setUint32(i * 4, value, true);
  });
  return bytes;
}
