// Test helper: a WebGpuBackend on SwiftShader (Debian's chromium package), or a printed reason to skip.
// Set TANDEM_TEST_GPU=native to test the machine's own GPU instead (e.g. on the H100 box).
import { inferOutputs, mapOpTensors, type BoundTensor, type DType, type Op, type TensorSpec } from '@tandem/core';
import type { WebGpuBackend } from '../backend.ts';
import { createNodeWebGpuBackend, type NodeWebGpuOptions } from '../node-gpu.ts';
import { useSwiftShader } from '../swiftshader.ts';

/** A ready backend, or why the GPU tests are skipped. */
export type TestBackend = { readonly ok: true; readonly backend: WebGpuBackend } | { readonly ok: false; readonly reason: string };

/** Creates and initialises a backend for tests; prints the reason when there is none. */
export async function createTestBackend(options: NodeWebGpuOptions = {}): Promise<TestBackend> {
  if (process.env['TANDEM_TEST_GPU'] !== 'native') {
    const software = useSwiftShader();
    if (!software.ok) return skip(software.reason);
  }
  const backend = createNodeWebGpuBackend(options);
  const init = await backend.init();
  if (!init.ok) return skip(init.reason);
  return { ok: true, backend };
}

function skip(reason: string): TestBackend {
  console.warn(`[webgpu tests] skipped: ${reason}`);
  return { ok: false, reason };
}

/** Host data of a tensor: f32 values, or raw bytes for other dtypes. */
export type HostData = Float32Array | Uint8Array | Uint32Array | Uint16Array | Int32Array | readonly number[];

/** Uploads values as a tensor (numbers are written as f32; typed arrays as their bytes). */
export async function upload(backend: WebGpuBackend, dtype: DType, shape: readonly number[], data: HostData): Promise<BoundTensor> {
  const array = Array.isArray(data) ? new Float32Array(data) : data;
  const bytes = ArrayBuffer.isView(array) ? new Uint8Array(array.buffer, array.byteOffset, array.byteLength) : new Uint8Array(0);
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
