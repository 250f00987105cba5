import { describe, expect, it } from 'vitest';
import { randomBlockMatrix } from './data.ts';

describe('the ROCm suite inputs', () => {
  it('makes random blocks whose scales are small positive halves', () => {
    const bytes = randomBlockMatrix('q8_0', 2, 64, 9);
    expect(bytes.byteLength).toBe(4 * 34);
    const view = new DataView(bytes.buffer);
    for (let b = 0; b < 4; b++) {
      const bits = view.getUint16(b * 34, true);
      expect(bits >>> 15).toBe(0);
      expect(bits).toBeGreaterThan(0x1000); // >= 0.001 as binary16
    }
  });
});
