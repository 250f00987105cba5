// Capabilities are data: per op, the dtypes of its first input a backend takes. Limits that depend on the device or
// the call are each backend's supportsOp.
import { describe, expect, it } from 'vitest';
import { checkCapabilities } from './capability.ts';
import { capabilitiesOf } from './kernel-table.ts';

describe('capabilities', () => {
  const table = capabilitiesOf({ matmul: { dtypes: ['f32'] }, silu: {} });
  const f32 = { dtype: 'f32', shape: [2, 2] } as const;

  it('are a row per op with a kernel: the op and its dtypes, nothing else', () => {
    expect(table).toEqual([
      { op: 'matmul', dtypes: ['f32'] },
      { op: 'silu', dtypes: ['f32'] },
    ]);
  });

  it('accept an op of a listed dtype and say why they refuse any other', () => {
    expect(checkCapabilities(table, { op: 'matmul', a: f32, b: f32 })).toEqual({ ok: true });
    const f16 = { dtype: 'f16', shape: [2, 2] } as const;
    expect(checkCapabilities(table, { op: 'matmul', a: f16, b: f16 })).toEqual({
      ok: false,
      reason: 'matmul does not support dtype f16',
    });
    expect(checkCapabilities(table, { op: 'scale', x: f32, factor: 2 })).toEqual({
      ok: false,
      reason: 'scale is not implemented',
    });
  });
});
