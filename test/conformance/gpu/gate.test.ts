// The GPU gate checks itself here, without a GPU: the reference's kernels pass every case, and kernels that are wrong
// on purpose (test/support/wrong-backend.ts) fail it, so its exit code is a verdict and not a formality.
import { describe, expect, it } from 'vitest';
import { computeReference, ReferenceBackend } from '@tandem/reference';
import { WrongBackend } from '../../support/wrong-backend.ts';
import { CASES, caseRng } from '../cases.ts';
import { runGate } from './gate.ts';

const quiet = (): void => undefined;

describe('the GPU gate (gate.ts)', () => {
  it('passes the reference on every case', async () => {
    expect(await runGate([new ReferenceBackend()], CASES, quiet)).toEqual([]);
  }, 120_000);

  it('fails kernels that return zeros or read one element late, naming the backend, case and element', async () => {
    const matmuls = CASES.filter((c) => c.name.startsWith('matmul'));
    const failures = await runGate([new WrongBackend('zeros'), new WrongBackend('off-by-one')], matmuls, quiet);
    // Zeros pass only where the right answer is all zeros (an empty output, or K = 0).
    const nonZero = matmuls.filter((c) =>
      computeReference(c.build(caseRng(c.name))).some((t) => t.data.some((byte) => byte !== 0)),
    );
    expect(failures.filter((f) => f.startsWith('wrong-zeros ')).map((f) => f.split(':')[0])).toEqual(
      nonZero.map((c) => `wrong-zeros ${c.name}`),
    );
    expect(failures.some((f) => /^wrong-off-by-one matmul .*elements differ .*\[\d+\] got/.test(f))).toBe(true);
  }, 120_000);

  it('fails a backend that does not start', async () => {
    const broken = new WrongBackend('zeros');
    broken.init = async () => ({ ok: false, reason: 'no device here' });
    expect(await runGate([broken], CASES.slice(0, 1), quiet)).toEqual(['wrong-zeros: UNAVAILABLE (no device here)']);
  });
});
