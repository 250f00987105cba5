import { describe, expect, it } from 'vitest';
import { concat } from './concat.ts';

describe('reference concat', () => {
  it('copies a then b, byte for byte', () => {
    const a = new Uint8Array(new Float32Array([1, -0, NaN]).buffer);
    const b = new Uint8Array(new Float32Array([Infinity, 2]).buffer);
    expect([...concat(a, b)]).toEqual([...a, ...b]);
  });

  it('takes empty sides', () => {
    const a = new Uint8Array([1, 2, 3, 4]);
    expect([...concat(a, new Uint8Array(0))]).toEqual([1, 2, 3, 4]);
    expect([...concat(new Uint8Array(0), a)]).toEqual([1, 2, 3, 4]);
    expect(concat(new Uint8Array(0), new Uint8Array(0)).byteLength).toBe(0);
  });
});
