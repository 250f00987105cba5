// Shared test plumbing: a started backend, typed uploads and downloads, one-op runs, and tolerant comparison.
import { expect } from 'vitest';
import { inferOutputs, mapOpTensors, type BoundTensor, type DType, type Op, type TensorSpec } from '@tandem/core';
import { WasmBackend, type WasmBackendOptions } from '../wasm-backend.ts';
import { ensureKernelsBuilt } from './build.ts';

/** A WasmBackend after a successful init() (kernels built first if needed). */
export async function startedBackend(options: WasmBackendOptions = {}): Promise<WasmBackend> {
  ensureKernelsBuilt();
  const backend = new WasmBackend(options);
  const result = await backend.init();
  if (!result.ok) throw new Error(`wasm backend did not start: ${result.reason}`);
  return backend;
}

/** Host data for an input: typed array plus its spec. */
export interface HostTensor {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;
}

/** An f32 host tensor. */
export function f32(shape: readonly number[], data: ArrayLike<number>): HostTensor {
  return { dtype: 'f32', shape, data: Float32Array.from(data) };
}

/** Raw bytes of any typed array. */
export function bytesOf(data: HostTensor['data']): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Uploads every tensor of an op, runs it, downloads the outputs as bytes, and frees everything. */
export async function runOnBackend(
  backend: WasmBackend,
  op: Op<HostTensor>,
): Promise<{ outputs: Uint8Array[]; specs: TensorSpec[]; kernelMs: number }> {
  const uploaded = new Map<HostTensor, BoundTensor>();
  for (const { tensor } of collect(op)) {
    if (uploaded.has(tensor)) continue;
    const spec = { dtype: tensor.dtype, shape: tensor.shape };
    uploaded.set(tensor, { ...spec, buffer: await backend.upload(bytesOf(tensor.data), spec) });
  }
  const bound = mapOpTensors(op, (t) => uploaded.get(t) ?? fail());
  const specs = inferOutputs(mapOpTensors(op, (t) => ({ dtype: t.dtype, shape: t.shape })));
  const result = await backend.run(bound, specs);
  const outputs = await Promise.all(result.outputs.map((b) => backend.download(b)));
  for (const b of result.outputs) backend.free(b);
  for (const t of uploaded.values()) backend.free(t.buffer);
  return { outputs, specs, kernelMs: result.kernelMs };
}

/** Runs an op and returns its first output as f32. */
export async function runF32(backend: WasmBackend, op: Op<HostTensor>): Promise<Float32Array> {
  const { outputs } = await runOnBackend(backend, op);
  return asF32(outputs[0] ?? new Uint8Array());
}

/** Bytes -> Float32Array (copying to an aligned buffer). */
export function asF32(bytes: Uint8Array): Float32Array {
  return new Float32Array(bytes.slice().buffer);
}

/** Bytes -> Int32Array. */
export function asI32(bytes: Uint8Array): Int32Array {
  return new Int32Array(bytes.slice().buffer);
}

/** Bytes -> Uint16Array (f16 bit patterns). */
export function asU16(bytes: Uint8Array): Uint16Array {
  return new Uint16Array(bytes.slice().buffer);
}

function collect(op: Op<HostTensor>): Array<{ tensor: HostTensor }> {
  const list: Array<{ tensor: HostTensor }> = [];
  mapOpTensors(op, (tensor) => {
    list.push({ tensor });
    return tensor;
  });
  return list;
}

function fail(): never {
  throw new Error('tensor was not uploaded');
}

/** Expects |got - want| <= abs + rel * |want| elementwise, reporting the first offender with its index. */
export function expectClose(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tolerance: { abs: number; rel: number },
  label = '',
): void {
  expect(got.length, `${label} length`).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const g = got[i] ?? NaN;
    const w = want[i] ?? NaN;
    if (Number.isNaN(w) && Number.isNaN(g)) continue;
    if (g === w) continue;
    const limit = tolerance.abs + tolerance.rel * Math.abs(w);
    if (!(Math.abs(g - w) <= limit)) {
      expect.fail(`${label} element ${i}: got ${g}, want ${w} (|diff| ${Math.abs(g - w)} > ${limit})`);
    }
  }
}
