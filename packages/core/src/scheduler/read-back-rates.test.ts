// ReadBackRates: the learned share of an op's outputs that callers read back (the engine charges that share of the
// download time to each backend; test/scheduler/read-back.test.ts shows the effect on the choice of backend).
import { describe, expect, it } from 'vitest';
import { ReadBackRates } from './read-back.ts';

describe('ReadBackRates', () => {
  it("is 0 for an op not seen, and the first output's fate alone once one was seen", () => {
    const rates = new ReadBackRates();
    expect(rates.rate('add|f32')).toBe(0);
    rates.observe('add|f32', true);
    expect(rates.rate('add|f32')).toBe(1);
    rates.observe('mul|f32', false);
    expect(rates.rate('mul|f32')).toBe(0);
  });

  it('moves a quarter of the way towards each new observation (a moving average)', () => {
    const rates = new ReadBackRates();
    rates.observe('add|f32', true);
    rates.observe('add|f32', false);
    expect(rates.rate('add|f32')).toBeCloseTo(0.75, 12);
    rates.observe('add|f32', false);
    expect(rates.rate('add|f32')).toBeCloseTo(0.5625, 12);
    rates.observe('add|f32', true);
    expect(rates.rate('add|f32')).toBeCloseTo(0.671875, 12);
  });

  it('lists every op key with its rate (what a profile saves)', () => {
    const rates = new ReadBackRates();
    expect(rates.entries()).toEqual([]);
    rates.observe('add|f32', true);
    rates.observe('mul|f16', false);
    expect(rates.entries()).toEqual([
      { opKey: 'add|f32', rate: 1 },
      { opKey: 'mul|f16', rate: 0 },
    ]);
  });

  it("seeds a profile's rates for op keys not observed here, and keeps the rates observed here", () => {
    const rates = new ReadBackRates();
    rates.observe('add|f32', false);
    rates.seed([
      { opKey: 'add|f32', rate: 1 },
      { opKey: 'mul|f32', rate: 0.4 },
    ]);
    expect(rates.rate('add|f32')).toBe(0);
    expect(rates.rate('mul|f32')).toBe(0.4);
    // A seeded rate then moves with observations like any other.
    rates.observe('mul|f32', true);
    expect(rates.rate('mul|f32')).toBeCloseTo(0.55, 12);
  });

  it("clamps a profile's rates to [0, 1]", () => {
    const rates = new ReadBackRates();
    rates.seed([
      { opKey: 'add|f32', rate: 1.7 },
      { opKey: 'mul|f32', rate: -0.3 },
      { opKey: 'sub|f32', rate: 0.25 },
    ]);
    expect(rates.entries()).toEqual([
      { opKey: 'add|f32', rate: 1 },
      { opKey: 'mul|f32', rate: 0 },
      { opKey: 'sub|f32', rate: 0.25 },
    ]);
  });
});
