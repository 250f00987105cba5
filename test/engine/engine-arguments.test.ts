// What createEngine and engine.tensor() refuse, as typed errors naming the argument, the value and the rule:
// two backends of one name, and quantized data whose rows are not whole blocks of 32.
import { describe, expect, it } from 'vitest';
import { Engine, InvalidArgumentError } from '@tandem/core';
import { ManualClock, SimulatedBackend } from '@tandem/testing';
import { simulatedEngine } from '../scheduler/harness.ts';
import { caught } from '../support/caught.ts';

describe('engine arguments', () => {
  it('refuses two backends of one name, naming the backends argument and the repeated name', () => {
    const clock = new ManualClock();
    const sim = (kind: 'cpu' | 'gpu') => new SimulatedBackend({ name: 'sim', kind, clock, latencyMs: () => 1 });
    const error = caught(() => new Engine({ backends: [sim('cpu'), sim('gpu')] }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ argument: 'backends', value: 'sim', limit: 'backend names must be unique' });
    expect(String(error)).toMatch(/backends = .*sim.*: backend names must be unique/);
  });

  it('refuses q4_0 data whose last dimension is not a multiple of 32, naming the shape, even when the bytes fit', async () => {
    const { engine } = await simulatedEngine();
    // 32 values in one q4_0 block (18 bytes) fit the byte count; as [32, 1] each row would be a 1-value block.
    const error = caught(() => engine.tensor(new Uint8Array(18), [32, 1], 'q4_0'));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({
      argument: 'tensor.shape',
      value: [32, 1],
      limit: 'last dimension must be a multiple of 32 for q4_0',
    });
    expect(engine.tensor(new Uint8Array(18), [1, 32], 'q4_0').shape).toEqual([1, 32]);
  });
});
