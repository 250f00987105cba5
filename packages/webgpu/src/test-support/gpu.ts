// Test helper: a WebGpuBackend on SwiftShader (Debian's chromium package), or the skip decision when it cannot start
// (test/support/requirements.ts: one [skip] line outside CI, a failure under CI). TANDEM_TEST_GPU=native tests the
// machine's own GPU instead (e.g. on the H100 box).
import {
  errorMessage,
  inferOutputs,
  mapOpTensors,
  type BoundTensor,
  type DType,
  type InitResult,
  type Op,
  type TensorSpec,
} from '@tandem/core';
import { nativeGpu, requireBackend } from '../../../../test/support/requirements.ts';
import type { WebGpuBackend } from '../backend.ts';
import { createNodeWebGpuBackend, type NodeWebGpuOptions } from '../node-gpu.ts';
import { useSwiftShader } from '../swiftshader.ts';

/** A ready backend, or why the GPU tests are skipped (outside CI only). */
export type TestBackend =
  | { readonly ok: true; readonly backend: WebGpuBackend }
  | { readonly ok: false; readonly reason: string };

/** Why WebGPU cannot run here before trying (no SwiftShader), or undefined; sets SwiftShader up. */
export function webGpuMissing(): string | undefined {
  if (nativeGpu()) return undefined;
  const software = useSwiftShader();
  return software.ok ? undefined : software.reason;
}

/** Creates and initialises a backend for tests; one that cannot start is skipped (outside CI) or throws (under CI). */
export async function createTestBackend(options: NodeWebGpuOptions = {}): Promise<TestBackend> {
  const missing = webGpuMissing();
  if (!requireBackend('webgpu', missing)) return { ok: false, reason: missing ?? 'unknown' };
  const backend = createNodeWebGpuBackend(options);
  const init = await backend.init().catch((error: unknown): InitResult => ({ ok: false, reason: errorMessage(error) }));
  if (init.ok) return { ok: true, backend };
  requireBackend('webgpu', `init() failed: ${init.reason}`);
  return { ok: false, reason: init.reason };
}
/** Host data of a tensor: f32 values, or raw bytes for other dtypes. */
export type HostData = Float32Array | Uint8Array | Uint32Array | Uint16Array | Int32Array | readonly number[];

/** Uploads values as a tensor (numbers are written as f32; typed arrays as their bytes). */
export async function upload(
  backend: WebGpuBackend,
  dtype: DType,
  shape: readonly number[],
  data: HostData,
): Promise<BoundTensor> {
  const array = Array.isArray(data) ? new Float32Array(data) : data;
  const bytes = ArrayBuffer.isView(array)
    ? new Uint8Array(array.buffer, array.byteOffset, array.byteLength)
    : new Uint8Array(0);
  const buffer = await backend.upload(bytes, { dtype, shape });
  return { dtype, shape, buffer };
}

/** Runs an op with its inferred output specs and returns the outputs as bound tensors. */
export async function run(backend: WebGpuBackend, op: Op<BoundTensor>): Promise<BoundTensor[]> {
  const specs = inferOutputs(specsOf(op));
  const result = await backend.run(op, specs);
  return specs.map((spec, i) => {
    const buffer = result.outputs[i];
    if (buffer === undefined) throw new Error(`missing output ${i}`);
    return { ...spec, buffer };
  });
}

/** Runs a single-output op and returns its output, resident on the device. */
export async function runOne(backend: WebGpuBackend, op: Op<BoundTensor>): Promise<BoundTensor> {
  const [out] = await run(backend, op);
  if (out === undefined) throw new Error(`${op.op} returned no output`);
  return out;
}

/** Reads a tensor back as f32 values. */
export async function readF32(backend: WebGpuBackend, t: BoundTensor): Promise<Float32Array> {
  const bytes = await backend.download(t.buffer);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** Reads a tensor back as i32 values. */
export async function readI32(backend: WebGpuBackend, t: BoundTensor): Promise<Int32Array> {
  const bytes = await backend.download(t.buffer);
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** Uploads, runs a single-output op and reads the result as f32. */
export async function runF32(backend: WebGpuBackend, op: Op<BoundTensor>): Promise<Float32Array> {
  const out = await runOne(backend, op);
  const values = await readF32(backend, out);
  backend.free(out.buffer);
  return values;
}

function specsOf(op: Op<BoundTensor>): Op<TensorSpec> {
  return mapOpTensors(op, (t): TensorSpec => ({ dtype: t.dtype, shape: t.shape }));
}
