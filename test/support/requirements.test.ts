// requireOrSkip: present -> true; missing under CI -> an Error naming what, why and how; missing elsewhere ->
// one `[skip]` line per process per part, and false.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { madeUnavailable, requireBackend, requireOrSkip, UNAVAILABLE_REASON, underCi } from './requirements.ts';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('requireOrSkip', () => {
  it('returns true and prints nothing when nothing is missing, in CI or not', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('CI', 'true');
    expect(requireOrSkip('present part', undefined, 'nothing to do')).toBe(true);
    vi.stubEnv('CI', '');
    expect(requireOrSkip('present part', undefined, 'nothing to do')).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it('under CI, throws naming the part, the reason and how to enable it', () => {
    vi.stubEnv('CI', 'true');
    expect(() => requireOrSkip('webgpu backend', 'no SwiftShader ICD', 'apt-get install chromium')).toThrow(
      'webgpu backend is required under CI but is missing: no SwiftShader ICD. To enable it: apt-get install chromium',
    );
  });

  it('outside CI, prints exactly one skip line per part per process and returns false', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('CI', '');
    expect(requireOrSkip('rocm emulated addon', 'no build at x', 'node build.mjs')).toBe(false);
    expect(requireOrSkip('rocm emulated addon', 'no build at x', 'node build.mjs')).toBe(false);
    expect(requireOrSkip('wordnet', 'no data.noun', 'apt-get install wordnet-base')).toBe(false);
    expect(warn.mock.calls).toEqual([
      ['[skip] rocm emulated addon: no build at x (node build.mjs)'],
      ['[skip] wordnet: no data.noun (apt-get install wordnet-base)'],
    ]);
  });

  it('reads CI as set unless it is empty, 0 or false', () => {
    for (const [value, expected] of [
      ['true', true],
      ['1', true],
      ['', false],
      ['0', false],
      ['false', false],
      ['FALSE', false],
    ] as const) {
      vi.stubEnv('CI', value);
      expect(underCi(), `CI=${value}`).toBe(expected);
    }
    vi.stubEnv('CI', undefined);
    expect(underCi()).toBe(false);
  });
});

describe('TANDEM_TEST_UNAVAILABLE', () => {
  it('names backends that count as missing whatever their state: under CI requireBackend throws naming the variable', () => {
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', 'webgpu, reference');
    expect(['reference', 'wasm', 'webgpu', 'rocm'].map(madeUnavailable)).toEqual([true, false, true, false]);
    vi.stubEnv('CI', 'true');
    expect(requireBackend('wasm', undefined)).toBe(true);
    expect(() => requireBackend('webgpu', undefined)).toThrow(
      `webgpu backend is required under CI but is missing: ${UNAVAILABLE_REASON}.`,
    );
  });

  it('unset or empty, names none; an unknown name throws rather than making nothing unavailable', () => {
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', undefined);
    expect(madeUnavailable('wasm')).toBe(false);
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', '');
    expect(madeUnavailable('wasm')).toBe(false);
    vi.stubEnv('TANDEM_TEST_UNAVAILABLE', 'wasm,cuda');
    expect(() => madeUnavailable('wasm')).toThrow(
      'TANDEM_TEST_UNAVAILABLE=cuda: not a backend (reference, wasm, webgpu, rocm)',
    );
  });
});
