// Encodes a plan into one command buffer and submits it: consecutive dispatches share a compute pass,
// copies go between passes, each dispatch gets a pooled uniform block. Call inside guarded().
import type { DeviceContext } from './device-context.ts';
import { UNIFORM_USAGE } from './gpu-constants.ts';
import { BufferRange, type DispatchStep, type Step } from './plan.ts';
import type { TimestampPair } from './timestamps.ts';

/** Encodes and submits `steps`; returns the uniform buffers used (release them to the pool afterwards). */
export function encodeAndSubmit(
  ctx: DeviceContext,
  steps: readonly Step[],
  label: string,
  timing: TimestampPair | undefined,
): GPUBuffer[] {
  const device = ctx.device;
  const encoder = device.createCommandEncoder({ label });
  const uniforms: GPUBuffer[] = [];
  const segments = passSegments(steps);
  const passIndices = segments.flatMap((s, i) => (s.kind === 'pass' ? [i] : []));
  const firstPass = passIndices[0];
  const lastPass = passIndices[passIndices.length - 1];
  segments.forEach((segment, index) => {
    if (segment.kind === 'copy') {
      if (segment.bytes > 0)
        encoder.copyBufferToBuffer(
          segment.source,
          segment.sourceOffset,
          segment.destination,
          segment.destinationOffset,
          segment.bytes,
        );
      return;
    }
    const timestampWrites = timing?.writes(index === firstPass, index === lastPass);
    const pass = encoder.beginComputePass({ label, ...(timestampWrites === undefined ? {} : { timestampWrites }) });
    for (const step of segment.dispatches) encodeDispatch(ctx, pass, step, uniforms);
    pass.end();
  });
  timing?.resolve(encoder);
  device.queue.submit([encoder.finish()]);
  return uniforms;
}

/** Whether a plan has any dispatch (only then is there a kernel to time). */
export function hasDispatch(steps: readonly Step[]): boolean {
  return steps.some((s) => s.kind === 'dispatch' && s.grid[0] > 0 && s.grid[1] > 0);
}

type Segment = { readonly kind: 'pass'; readonly dispatches: DispatchStep[] } | (Step & { readonly kind: 'copy' });

function passSegments(steps: readonly Step[]): Segment[] {
  const segments: Segment[] = [];
  for (const step of steps) {
    if (step.kind === 'copy') {
      segments.push(step);
      continue;
    }
    if (step.grid[0] === 0 || step.grid[1] === 0) continue;
    const last = segments[segments.length - 1];
    if (last !== undefined && last.kind === 'pass') last.dispatches.push(step);
    else segments.push({ kind: 'pass', dispatches: [step] });
  }
  return segments;
}

function encodeDispatch(
  ctx: DeviceContext,
  pass: GPUComputePassEncoder,
  step: DispatchStep,
  uniforms: GPUBuffer[],
): void {
  const { pipeline, bindGroupLayout } = ctx.pipelines.get(step.spec, step.overrides);
  const uniform = ctx.pool.acquire(step.params.byteLength, UNIFORM_USAGE);
  uniforms.push(uniform);
  ctx.device.queue.writeBuffer(uniform, 0, step.params);
  const entries: GPUBindGroupEntry[] = step.buffers.map((bound, binding) => ({
    binding,
    resource:
      bound instanceof BufferRange
        ? { buffer: bound.buffer, offset: bound.offset, size: bound.size }
        : { buffer: bound },
  }));
  entries.push({ binding: step.buffers.length, resource: { buffer: uniform, size: step.params.byteLength } });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, ctx.device.createBindGroup({ layout: bindGroupLayout, entries }));
  pass.dispatchWorkgroups(step.grid[0], step.grid[1]);
}
