import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { installNavigatorGpu, kernelMsOf } from './tfjs-webgpu.ts';

const fakeGpu = { requestAdapter: async () => null };

describe('tfjs-backend-webgpu shim', () => {
  it('creates navigator with the GPU when the host has none (Node 20)', () => {
    const host = {};
    expect(installNavigatorGpu(host, fakeGpu)).toBe('created');
    expect(Reflect.get(Reflect.get(host, 'navigator'), 'gpu')).toBe(fakeGpu);
  });

  it('adds gpu to an existing navigator and keeps one already there', () => {
    const host = { navigator: { userAgent: 'node' } };
    expect(installNavigatorGpu(host, fakeGpu)).toBe('added');
    expect(Reflect.get(host.navigator, 'gpu')).toBe(fakeGpu);
    const other = { requestAdapter: async () => null };
    expect(installNavigatorGpu(host, other)).toBe('kept');
    expect(Reflect.get(host.navigator, 'gpu')).toBe(fakeGpu);
  });

  it('rejects something that is not a GPU, and a non-object navigator', () => {
    expect(() => installNavigatorGpu({}, {})).toThrow(InvalidArgumentError);
    expect(() => installNavigatorGpu({ navigator: 3 }, fakeGpu)).toThrow(InvalidArgumentError);
  });

  it('reads kernelMs from tf.time only when it is a time', () => {
    expect(kernelMsOf({ kernelMs: 1.25 })).toBe(1.25);
    expect(kernelMsOf({ kernelMs: { error: 'WebGPU timestamp query not supported' } })).toBeUndefined();
    expect(kernelMsOf({ kernelMs: Number.NaN })).toBeUndefined();
    expect(kernelMsOf({ kernelMs: -1 })).toBeUndefined();
  });
});
