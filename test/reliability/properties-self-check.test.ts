// The properties check themselves: each runs against kernels that are wrong on purpose (all zeros, every element
// read one late, the first operand read transposed: test/support/wrong-backend.ts) and must find a counterexample
// for every kind it claims to catch, with the run's seed. A property that passes a wrong kernel cannot fail. And
// every op has a property: a new op without one fails here.
import { afterAll, describe, expect, it } from 'vitest';
import { OP_KINDS } from '@tandem/core';
import { WRONG_KINDS, WrongBackend } from '../support/wrong-backend.ts';
import { PROPERTIES } from './properties/index.ts';
import { AgreementBench, PROPERTY_TIMEOUT_MS, RUNS } from './property-support.ts';

const bench = await AgreementBench.create(WRONG_KINDS.map((kind) => new WrongBackend(kind)));

afterAll(async () => {
  await bench.dispose();
});

describe('every property fails on deliberately wrong kernels', () => {
  for (const property of PROPERTIES) {
    for (const kind of property.catches) {
      it(
        `${property.name}: catches ${kind}`,
        async () => {
          const target = { name: `wrong-${kind}`, gpu: false };
          // endOnFailure: the counterexample as found (shrinking it is not the point here).
          const failure = await property.assert(bench, target, { ...RUNS, endOnFailure: true }).then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(failure, 'the property passed').toBeInstanceOf(Error);
          // fast-check's error carries the property's own as its cause: a disagreement on that backend, not a crash.
          expect(failure instanceof Error ? String(failure.cause) : '').toContain(` on wrong-${kind}: `);
        },
        PROPERTY_TIMEOUT_MS,
      );
    }
  }
});

describe('the properties', () => {
  it('run every op id in OP_KINDS (over 20 sampled inputs each)', () => {
    const covered = new Set(PROPERTIES.flatMap((p) => [...p.opsSampled(20)]));
    expect(OP_KINDS.filter((op) => !covered.has(op))).toEqual([]);
  });
});
