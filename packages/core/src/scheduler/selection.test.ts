// describeReason() and formatMs() are what explain(), the debug table and the demo's "why" column show: each reason
// kind's sentence, exactly (mutation testing found none of them read by a test).
import { describe, expect, it } from 'vitest';
import { describeReason, formatMs, type SelectionReason } from './selection.ts';

const SENTENCES: readonly (readonly [SelectionReason, string])[] = [
  [{ kind: 'gpu-available' }, 'GPU available'],
  [{ kind: 'gpu-unavailable', why: 'no adapter' }, 'GPU unavailable: no adapter'],
  [
    { kind: 'cpu-fallback', why: 'every backend has an open circuit' },
    'CPU fallback: every backend has an open circuit',
  ],
  [{ kind: 'cost-model', measured: true }, 'cost model (measured)'],
  [{ kind: 'cost-model', measured: false }, 'cost model (prior)'],
  [
    { kind: 'memory-constraint', backend: 'webgpu', requiredBytes: 2048, availableBytes: 1024 },
    'memory: webgpu needs 2048 B, has 1024 B',
  ],
  [{ kind: 'user-preference', strategy: 'cpu-preferred' }, 'user preference: cpu-preferred'],
  [{ kind: 'force-cpu' }, 'forceCpu'],
  [{ kind: 'below-min-batch', batch: 1, minBatch: 64 }, 'batch 1 below gpuMinBatchSize 64 (no GPU measurement yet)'],
  [
    { kind: 'below-min-speedup', gpu: 'webgpu', speedup: 1.234, minSpeedup: 1.5 },
    'webgpu only 1.23x faster than the CPU, below gpuMinSpeedup 1.5',
  ],
  [{ kind: 'error-fallback', failed: 'rocm', error: 'device lost' }, 'fallback after rocm failed: device lost'],
  [{ kind: 'circuit-open', backend: 'rocm', successRate: 0.256 }, 'circuit open on rocm (success rate 0.26)'],
  [{ kind: 'exploring', backend: 'webgpu', why: 'stale' }, 'exploring webgpu (stale)'],
  [{ kind: 'hysteresis', kept: 'wasm' }, 'kept wasm (hysteresis)'],
  [{ kind: 'warming', backend: 'webgpu' }, 'webgpu is warming up (its first run of this op, in the background)'],
  [
    {
      kind: 'only-capable',
      skipped: [
        { backend: 'webgpu', reason: 'no f16' },
        { backend: 'rocm', reason: 'not built' },
      ],
    },
    'only capable backend (webgpu: no f16; rocm: not built)',
  ],
];

describe('describeReason', () => {
  it.each(SENTENCES)('%j reads "%s"', (reason, sentence) => {
    expect(describeReason(reason)).toBe(sentence);
  });

  it('lists the compared estimates after a cost-model or hysteresis reason, and only when given', () => {
    const costs = { wasm: 0.004, webgpu: 2.5, rocm: 12.34 };
    expect(describeReason({ kind: 'cost-model', measured: true }, costs)).toBe(
      'cost model (measured): wasm 4.00us, webgpu 2.500ms, rocm 12.3ms',
    );
    expect(describeReason({ kind: 'hysteresis', kept: 'wasm' }, { wasm: 1 })).toBe(
      'kept wasm (hysteresis): wasm 1.000ms',
    );
    expect(describeReason({ kind: 'gpu-available' }, costs)).toBe('GPU available');
  });
});

describe('formatMs', () => {
  it('shows microseconds below 0.01 ms, three decimals below 10 ms, one above, and non-finite values as they are', () => {
    expect(formatMs(0.00123)).toBe('1.23us');
    expect(formatMs(0.00999)).toBe('9.99us');
    expect(formatMs(0.01)).toBe('0.010ms');
    expect(formatMs(9.9994)).toBe('9.999ms');
    expect(formatMs(10)).toBe('10.0ms');
    expect(formatMs(123.456)).toBe('123.5ms');
    expect(formatMs(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(formatMs(Number.NaN)).toBe('NaN');
  });
});
