// test/support/backends.ts, the way tests start a backend: one that starts is returned initialised; one that does
// not (its init() fails, its constructor throws, or TANDEM_TEST_UNAVAILABLE names it) is undefined after one [skip]
// line outside CI, and under CI a rejection naming the backend and its reason. No real backend is started here.
import type { InitResult } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { needBackends, started, startBackend } from './backends.ts';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** A stand-in for the wasm backend whose init() resolves `result`, recording whether it was disposed. */
class StandIn extends ReferenceBackend {
  /** Whether dispose() was called. */
  disposed = false;
  /** `result`: what init() resolves. */
  constructor(private readonly result: InitResult) {
    super();
  }
  /** Resolves the given result. */
  override async init(): Promise<InitResult> {
    return this.result;
  }
  /** Records the call. */
  override async dispose(): Promise<void> {
    this.disposed = true;
    await super.dispose();
  }
}

describe('startBackend', () => {
  it('returns the backend once its init() succeeds, in CI or not', async () => {
    vi.stubEnv('CI', 'true');
    const standIn = new StandIn({ ok: true });
    expect(await startBackend('wasm', () => standIn)).toBe(standIn);
  });

  it('under CI, rejects naming the backend and why when init() fails, and disposes what it made', async () => {
    vi.stubEnv('CI', 'true');
    const standIn = new StandIn({ ok: false, reason: 'no kernels built' });
    await expect(startBackend('wasm', () => standIn)).rejects.toThrow(
      'wasm backend is required under CI but is missing: init() failed: no kernels built.',
    );
    expect(standIn.disposed).toBe(true);
  });

  it('under CI, rejects when the backend cannot be constructed', async () => {
    vi.stubEnv('CI', 'true');
    const broken = (): StandIn => {
      throw new Error('addon refused');
    };
    await expect(startBackend('rocm', broken)).rejects.toThrow(
      'rocm backend is required under CI but is missing: could not be created: addon refused.',
    );
  });

  it('outside CI, resolves undefined after one [skip] line naming the backend, why and how to enable it', async () => {
    vi.stubEnv('CI', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await startBackend('wasm', () => new StandIn({ ok: false, reason: 'no kernels built' }))).toBeUndefined();
    expect(warn.mock.calls).toEqual([
      ['[skip] wasm backend: init() failed: no kernels built (npm run build -w @tandem/wasm)'],
    ]);
  });

  it('treats a backend named by TANDEM_TEST_UNAVAILABLE as missing without making it', async () => {
    vi.stubEnv('CI', 'true');
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', 'wasm');
    const create = vi.fn(() => new StandIn({ ok: true }));
    await expect(startBackend('wasm', create)).rejects.toThrow(
      'wasm backend is required under CI but is missing: made unavailable by TANDEM_TEST_UNAVAILABLE.',
    );
    expect(create).not.toHaveBeenCalled();
  });
});

describe('needBackends', () => {
  it('checks every backend named, so each missing one has its own [skip] line, and is true only when all are there', () => {
    vi.stubEnv('CI', '');
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', 'rocm,webgpu');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(needBackends('rocm', 'webgpu')).toBe(false);
    expect(warn.mock.calls.map(([line]) => String(line).split(':')[0])).toEqual([
      '[skip] rocm backend',
      '[skip] webgpu backend',
    ]);
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', '');
    expect(needBackends()).toBe(true);
  });
});

describe('started', () => {
  it('returns a value that is there and throws naming what did not start', () => {
    expect(started('wasm', 1)).toBe(1);
    expect(() => started('wasm', undefined)).toThrow('wasm did not start');
  });
});
