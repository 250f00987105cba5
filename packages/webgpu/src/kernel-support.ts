// What the WebGPU backend's kernels (kernels/<op_id>.ts) share: their table entry's type, the elementwise grid, and
// the elementwise families' kernels. Every kernel reads and writes f32: f16 tensors reach it widened, and its f16
// outputs are packed after it (f16-storage.ts).
import {
  BackendError,
  kernelName,
  numel,
  opInputs,
  type KernelReach,
  type Op,
  type OpKind,
  type OpOf,
  type TensorSpec,
  type UnaryOpKind,
} from '@tandem/core';
import type { DeviceLimits } from './device-context.ts';
import { BACKEND_NAME } from './gpu-errors.ts';
import type { KernelSpec } from './kernel-spec.ts';
import { dispatch, gridFits, linearGrid, type DeviceTensor, type Grid, type PlanContext, type Step } from './plan.ts';
import { WGSL_KERNELS } from './wgsl-kernels.generated.ts';

/** The WebGPU backend's kernel of op K. */
export interface WebGpuKernel<K extends OpKind> extends KernelReach {
  /** Steps that compute the op into `outputs` (allocated by the caller, one per output spec). */
  plan(op: OpOf<K, DeviceTensor>, outputs: readonly DeviceTensor[], ctx: PlanContext): Step[];
  /** Why this device cannot run the op beyond its binding and buffer sizes (grid, workgroup memory, work), if so. */
  refuse?(op: OpOf<K, TensorSpec>, limits: DeviceLimits): string | undefined;
  /** Buffer-to-buffer copies only: nothing is bound, so only maxBufferSize applies (concat). */
  readonly copiesOnly?: boolean;
  /** The input the planner binds in ranges, one dispatch each, so that it may exceed one binding (cosine targets). */
  readonly rangedInput?: string;
}

/** The output buffer `i` of a plan. */
export function output(outputs: readonly DeviceTensor[], i: number, op: string): DeviceTensor {
  const out = outputs[i];
  if (out === undefined) throw new BackendError('BAD_OUTPUT', BACKEND_NAME, `${op}: no output buffer ${i}`);
  return out;
}

/** Why a grid of one invocation per element of the op's largest input (64 per workgroup) is past the device's, if it is. */
export function elementCountRefusal(op: Op<TensorSpec>, limits: DeviceLimits): string | undefined {
  const largest = Math.max(0, ...opInputs(op).map((i) => numel(i.tensor.shape)));
  const groups = Math.ceil(largest / 64);
  return gridFits(groups, limits) ? undefined : `${op.op} on ${largest} elements needs ${groups} workgroups`;
}

/** Invocations per workgroup of the elementwise kernels. */
export const ELEMENTWISE_WG = 256;

/** One invocation per element of n. */
export function elementwiseGrid(n: number, ctx: PlanContext): Grid {
  return linearGrid(Math.ceil(n / ELEMENTWISE_WG), ctx.limits);
}

/** add or mul (wgsl/add.wgsl, wgsl/mul.wgsl) with b broadcast over a's leading dimensions; f16 results rounded to binary16. */
export function binaryKernel<K extends 'add' | 'mul'>(spec: (typeof WGSL_KERNELS)['add' | 'mul']): WebGpuKernel<K> {
  return {
    plan(op, outputs, ctx) {
      const out = output(outputs, 0, op.op);
      const n = numel(out.shape);
      const overrides = { WG: ELEMENTWISE_WG, ROUND_F16: out.dtype === 'f16' ? 1 : 0 };
      return [
        dispatch(
          spec,
          { a: op.a.gpu, b: op.b.gpu, out: out.gpu },
          { n, b_len: numel(op.b.shape) },
          overrides,
          elementwiseGrid(n, ctx),
        ),
      ];
    },
  };
}

/** The interface every unary family kernel has: x in, out, n elements; overrides WG and optionally ROUND_F16. */
type UnarySpec = KernelSpec<'x' | 'out', 'n', 'WG' | 'ROUND_F16'>;

/** Kernels by name, for the families whose shaders are found by op id. */
const KERNELS_BY_NAME: ReadonlyMap<string, KernelSpec> = new Map<string, KernelSpec>(Object.entries(WGSL_KERNELS));

function isUnarySpec(spec: KernelSpec): spec is UnarySpec {
  const [x, out] = spec.bindings;
  const [n] = spec.params;
  return (
    spec.bindings.length === 2 &&
    x?.name === 'x' &&
    x.access === 'read' &&
    out?.name === 'out' &&
    out.access === 'read_write' &&
    spec.params.length === 1 &&
    n?.name === 'n' &&
    n.type === 'u32' &&
    spec.overrides.includes('WG') &&
    spec.overrides.every((o) => o === 'WG' || o === 'ROUND_F16')
  );
}

/** The shader of a unary op (wgsl/<op_id>.wgsl), when there is one with the family's interface. */
export function unarySpec(kind: UnaryOpKind): UnarySpec | undefined {
  const spec = KERNELS_BY_NAME.get(kernelName(kind));
  return spec !== undefined && isUnarySpec(spec) ? spec : undefined;
}

/** A unary elementwise op (core's unary family): wgsl/<op_id>.wgsl, one invocation per element; f16 rounded. */
export function unaryKernel(kind: UnaryOpKind): WebGpuKernel<UnaryOpKind> {
  const missing = `${kind}: no wgsl/${kernelName(kind)}.wgsl with bindings x (read), out (read_write), params n and override WG`;
  return {
    plan(op, outputs, ctx) {
      const spec = unarySpec(kind);
      if (spec === undefined) throw new BackendError('UNSUPPORTED', BACKEND_NAME, missing);
      const out = output(outputs, 0, kind);
      const n = numel(out.shape);
      return [
        dispatch(
          spec,
          { x: op.x.gpu, out: out.gpu },
          { n },
          { WG: ELEMENTWISE_WG, ROUND_F16: out.dtype === 'f16' ? 1 : 0 },
          elementwiseGrid(n, ctx),
        ),
      ];
    },
    refuse: () => (unarySpec(kind) === undefined ? missing : undefined),
  };
}
