// Invalid input through an engine (fast-check; the seed is printed and TANDEM_PROPERTY_SEED replays it): it must
// throw InvalidArgumentError naming the argument before any backend sees it; nothing may crash. The
// op properties themselves run per backend (properties-wasm, -webgpu, -rocm.test.ts, via properties-on.ts), and
// properties-self-check.test.ts proves each one catches wrong kernels; "agree" is defined in property-support.ts.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidArgumentError } from '@tandem/core';
import { ReferenceBackend } from '@tandem/reference';
import { AgreementBench, RUNS } from './property-support.ts';

const bench = await AgreementBench.create([new ReferenceBackend()]);

afterAll(async () => {
  await bench.dispose();
});

describe('invalid input is a typed error naming the argument, never a crash', () => {
  it('mismatched, negative, fractional or enormous shapes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        async (m, k, j) => {
          const a = bench.engine.tensor(new Float32Array(m * k), [m, k]);
          const b = bench.engine.tensor(new Float32Array((k + j) * 3), [k + j, 3]);
          const error = await bench.engine.run({ op: 'matmul', a, b }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidArgumentError);
          expect(error instanceof InvalidArgumentError ? error.argument : '').toMatch(/^matmul\./);
          a.dispose();
          b.dispose();
        },
      ),
      RUNS,
    );
    for (const shape of [[-1, 4], [2.5, 2], [2 ** 40, 2 ** 40], [Number.NaN]]) {
      const thrown = (() => {
        try {
          bench.engine.tensor(new Float32Array(4), shape);
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect(thrown instanceof InvalidArgumentError ? thrown.argument : '').toMatch(/^tensor\.shape/);
    }
  });

  it('topK with k out of range, softmax of a 0-d tensor, data of the wrong length', async () => {
    const x = bench.engine.tensor(new Float32Array(10), [2, 5]);
    await expect(bench.engine.run({ op: 'topK', x, k: 6 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(bench.engine.run({ op: 'topK', x, k: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(() => bench.engine.tensor(new Float32Array(7), [2, 4])).toThrow(InvalidArgumentError);
    x.dispose();
  });
});
