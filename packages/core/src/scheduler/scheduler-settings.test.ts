// The scheduler settings' checks (createEngine's `scheduler` option): every numeric setting's range and integrality,
// the switches, the per-op minimum batch table and its keys, and the messages that name what is wrong.
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors.ts';
import { OP_KINDS } from '../ops.ts';
import { checkSchedulerConfig } from './policy.ts';
import type { SchedulerConfig } from './selection.ts';

const WHERE = 'createEngine.scheduler';

/** The error checkSchedulerConfig throws for `config`, or undefined when it accepts it. */
function refusal(config: object): unknown {
  try {
    checkSchedulerConfig(WHERE, config as Partial<SchedulerConfig>);
    return undefined;
  } catch (e) {
    return e;
  }
}

/** Expects `config` refused with an InvalidArgumentError naming this argument, value and limit. */
function expectRefused(config: object, argument: string, value: unknown, limit: unknown): void {
  const error = refusal(config);
  expect(error).toBeInstanceOf(InvalidArgumentError);
  expect(error).toMatchObject({ argument, value, limit });
}

describe('numeric scheduler settings', () => {
  it('refuse a value below 1 for the ratios, naming the setting and the bound', () => {
    for (const key of ['gpuSpeedupThreshold', 'gpuMinSpeedup', 'exploreMaxRatio']) {
      expectRefused({ [key]: 0.5 }, `${WHERE}.${key}`, 0.5, 'must be a finite number >= 1');
    }
  });

  it('accept a fractional ratio at or above 1', () => {
    for (const key of ['gpuSpeedupThreshold', 'gpuMinSpeedup', 'exploreMaxRatio']) {
      expect(refusal({ [key]: 1.5 })).toBeUndefined();
      expect(refusal({ [key]: 1 })).toBeUndefined();
    }
  });

  it('refuse an infinite, NaN or non-number ratio', () => {
    for (const value of [Infinity, Number.NaN, '2']) {
      expectRefused({ gpuMinSpeedup: value }, `${WHERE}.gpuMinSpeedup`, value, 'must be a finite number >= 1');
    }
  });

  it('refuse a fractional or zero count for switchAfter and exploreEvery', () => {
    for (const key of ['switchAfter', 'exploreEvery']) {
      expectRefused({ [key]: 1.5 }, `${WHERE}.${key}`, 1.5, 'must be an integer >= 1');
      expectRefused({ [key]: 0 }, `${WHERE}.${key}`, 0, 'must be an integer >= 1');
      expect(refusal({ [key]: 1 })).toBeUndefined();
    }
  });
});

describe('switch settings', () => {
  it('refuse anything but true or false for each switch', () => {
    for (const key of ['exploreSoftware', 'warmInBackground', 'forceCpu']) {
      expectRefused({ [key]: 'yes' }, `${WHERE}.${key}`, 'yes', 'must be true or false');
      expect(refusal({ [key]: false })).toBeUndefined();
    }
  });
});

describe('unknown scheduler settings', () => {
  it('are refused with the list of the settings there are', () => {
    expectRefused(
      { gpuMinSpeedUp: 2 },
      `${WHERE}.gpuMinSpeedUp`,
      2,
      'is not a scheduler setting (settings: gpuSpeedupThreshold, switchAfter, gpuMinSpeedup, gpuMinBatchSize, ' +
        'gpuMinBatchSizeByOp, exploreEvery, exploreMaxRatio, exploreSoftware, warmInBackground, forceCpu)',
    );
  });
});

describe('gpuMinBatchSizeByOp', () => {
  const TABLE = `${WHERE}.gpuMinBatchSizeByOp`;
  const NOT_AN_OBJECT = "must be an object such as { cosineSimilarity: 1, 'matmul|f16': 16 }";

  it('must be an object: a number, a string, null or an array is refused as a whole', () => {
    for (const value of [5, 'matmul', null, [1]])
      expectRefused({ gpuMinBatchSizeByOp: value }, TABLE, value, NOT_AN_OBJECT);
  });

  it('names every op, comma-separated, when a key names none', () => {
    const error = refusal({ gpuMinBatchSizeByOp: { matmull: 1 } });
    expect(error).toMatchObject({ argument: TABLE, value: 'matmull' });
    const limit = (error as InvalidArgumentError).limit;
    const listed = /^names no op \(ops: (.*); optionally '\|<dtype>\[\+<dtype>\]'\)$/.exec(limit)?.[1];
    expect(listed?.split(', ')).toEqual([...OP_KINDS]);
  });

  it('names every dtype when a key names an unknown one', () => {
    expectRefused(
      { gpuMinBatchSizeByOp: { 'matmul|f64': 1 } },
      TABLE,
      'matmul|f64',
      "names no dtype 'f64' (dtypes: f32, f16, q8_0, q4_0, i32, u32)",
    );
  });

  it("refuses a key with more than one '|' (op, dtypes, then something else)", () => {
    expectRefused(
      { gpuMinBatchSizeByOp: { 'matmul|f32|f16': 1 } },
      TABLE,
      'matmul|f32|f16',
      "must be '<op>' or '<op>|<dtype>[+<dtype>]'",
    );
  });

  it('accepts an op, an op and a dtype, and an op and several dtypes', () => {
    expect(refusal({ gpuMinBatchSizeByOp: { matmul: 16, 'matmul|f16': 8, 'matmul|f32+f16': 0 } })).toBeUndefined();
  });
});
