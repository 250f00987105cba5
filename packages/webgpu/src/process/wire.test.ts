// The wire format on its own: requests are checked field by field before the child acts on them, and errors
// come back as the same classes with the same messages.
import {
  isOpOver,
  BackendError,
  DeadlineExceededError,
  DeviceLostError,
  InvalidArgumentError,
  OutOfMemoryError,
} from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { lastMessages } from './child-connection.ts';
import { parseRequest } from './child-server.ts';
import { fromWireError, toWireError } from './wire-errors.ts';
import { isGpuReply, isRemoteTensor } from './wire-guards.ts';

const x = { dtype: 'f32', shape: [2, 3], buffer: 7 };

describe('requests', () => {
  it('accepts well-formed requests of every type', () => {
    expect(
      parseRequest({ type: 'init', id: 1, setup: { swiftShader: true, dawnFlags: ['backend=vulkan'] } }),
    ).toMatchObject({ type: 'init' });
    expect(
      parseRequest({ type: 'upload', id: 2, data: new Uint8Array(24), spec: { dtype: 'f32', shape: [2, 3] } }),
    ).toMatchObject({ type: 'upload' });
    expect(parseRequest({ type: 'download', id: 3, buffer: 7 })).toEqual({ type: 'download', id: 3, buffer: 7 });
    expect(parseRequest({ type: 'free', buffer: 7 })).toEqual({ type: 'free', buffer: 7 });
    const run = {
      type: 'run',
      id: 4,
      op: { op: 'rmsNorm', x, weight: undefined, eps: 1e-5 },
      outputs: [{ dtype: 'f32', shape: [2, 3] }],
    };
    expect(parseRequest(run)).toMatchObject({ type: 'run', op: { op: 'rmsNorm' } });
    for (const type of ['describe', 'health', 'dispose'])
      expect(parseRequest({ type, id: 5 })).toEqual({ type, id: 5 });
  });

  it('names what is wrong with a malformed request', () => {
    expect(parseRequest(null)).toBe('not an object');
    expect(parseRequest({ type: 'health' })).toBe("request 'health' without an id");
    expect(parseRequest({ type: 'upload', id: 1, data: [1, 2], spec: { dtype: 'f32', shape: [2] } })).toBe(
      'upload without bytes or a tensor spec',
    );
    expect(parseRequest({ type: 'init', id: 1, setup: { swiftShader: 'yes' } })).toBe('init with a malformed setup');
    expect(parseRequest({ type: 'run', id: 1, op: { op: 'conv2d', x }, outputs: [] })).toBe(
      'run with a malformed op (op id conv2d)',
    );
    expect(parseRequest({ type: 'teleport', id: 1 })).toBe("unknown request type 'teleport'");
  });

  it('checks every field of an op against its kind', () => {
    expect(isOpOver({ op: 'matmul', a: x, b: x }, isRemoteTensor)).toBe(true);
    expect(isOpOver({ op: 'matmul', a: x }, isRemoteTensor)).toBe(false);
    expect(isOpOver({ op: 'matmul', a: x, b: { ...x, dtype: 'f64' } }, isRemoteTensor)).toBe(false);
    expect(isOpOver({ op: 'matmul', a: x, b: { ...x, shape: [2, -1] } }, isRemoteTensor)).toBe(false);
    expect(isOpOver({ op: 'rope', x, positionOffset: 0, base: 1e4, mode: 'sideways' }, isRemoteTensor)).toBe(false);
    expect(isOpOver({ op: 'attention', q: x, k: x, v: x, causal: true, scale: undefined }, isRemoteTensor)).toBe(true);
    expect(isOpOver({ op: 'attention', q: x, k: x, v: x, causal: 'no', scale: undefined }, isRemoteTensor)).toBe(false);
  });

  it('checks replies', () => {
    expect(isGpuReply({ id: 1, ok: true, result: null, health: { state: 'healthy' } })).toBe(true);
    expect(isGpuReply({ id: 1, ok: true, result: null, health: { state: 'fine' } })).toBe(false);
    expect(isGpuReply({ id: 1, ok: false, error: { name: 'Error' }, health: { state: 'healthy' } })).toBe(false);
  });
});

describe('errors across the boundary', () => {
  const cases: Array<[string, Error]> = [
    ['DeviceLostError', new DeviceLostError('webgpu', 'destroyed: device was destroyed (during run matmul)')],
    ['OutOfMemoryError', new OutOfMemoryError('webgpu', 'upload f32[1024, 1024] (out of memory)', 4194304, 1048576)],
    ['InvalidArgumentError', new InvalidArgumentError('upload.data.byteLength', 12, 'must be 16 for f32[4]')],
    ['DeadlineExceededError', new DeadlineExceededError('webgpu', 'matmul', 500)],
    ['BackendError', new BackendError('GPU_VALIDATION', 'webgpu', 'run matmul: validation error: bad binding')],
  ];
  it.each(cases)('%s keeps its class, code, message and fields', (_name, error) => {
    const back = fromWireError(toWireError(error));
    expect(back.constructor).toBe(error.constructor);
    expect(back.message).toBe(error.message);
    expect(back).toMatchObject({ ...error });
  });

  it('anything else becomes a BackendError with the message', () => {
    const back = fromWireError(toWireError(new TypeError('x is not a function')));
    expect(back).toBeInstanceOf(BackendError);
    expect(back.message).toBe('[webgpu] x is not a function');
    expect(back).toMatchObject({ code: 'GPU_PROCESS_ERROR' });
  });

  it("an abort's last words skip Node's stack traces", () => {
    const stderr =
      'warming up\nFatal glibc error: tpp.c:83 (__pthread_tpp_change_priority): assertion failed\n----- Native stack trace -----\n\n 1: 0xd3a3c0  [node]\n\n----- JavaScript stack trace -----\n\n1: [eval]:1:62\n';
    expect(lastMessages(stderr)).toEqual([
      'warming up',
      'Fatal glibc error: tpp.c:83 (__pthread_tpp_change_priority): assertion failed',
    ]);
  });
});
