import { describe, expect, it } from 'vitest';
import { parseCublasOutput } from './cublas.ts';
import { attempt } from './guard.ts';
import { matmulSideFor } from './wait-cpu.ts';

describe('cuBLAS ceiling output', () => {
  it('reads the SGEMM and GEMV figures from the last JSON line', () => {
    const out =
      'warming up\n{"device": "NVIDIA H100", "sgemm_4096": {"ms": 2.7, "tflops": 50.2}, "gemv_1Mx768": {"ms": 1.0, "tbps": 3.1}}\n';
    expect(parseCublasOutput(out)).toEqual({ device: 'NVIDIA H100', sgemm4096Tflops: 50.2, gemvTbps: 3.1 });
  });

  it('throws when there is no SGEMM figure', () => {
    expect(() => parseCublasOutput('no json here')).toThrow(/no JSON/);
    expect(() => parseCublasOutput('{"device": "x"}')).toThrow(/sgemm_4096/);
  });
});

describe('guarded measurements', () => {
  it('turns a throw and a timeout into reasons naming the measurement', async () => {
    expect(await attempt('ok', 1000, async () => 7)).toEqual({ ok: true, value: 7 });
    expect(await attempt('boom', 1000, async () => Promise.reject(new Error('bad')))).toEqual({
      ok: false,
      reason: 'boom: bad',
    });
    const hung = await attempt('hang', 10, () => new Promise<number>(() => undefined));
    expect(hung).toEqual({ ok: false, reason: 'hang: no result within 0 s' });
  });
});

describe('wait job sizing', () => {
  it('sizes a matmul to the target time at the measured rate, in multiples of 64 within bounds', () => {
    // 2 n^3 = 100 ms x 1e9 FLOP/ms -> n ~ 3684 -> 3712
    expect(matmulSideFor(100, 1e9, 16384)).toBe(3712);
    expect(matmulSideFor(100, 1, 16384)).toBe(64);
    expect(matmulSideFor(100, 1e12, 1000)).toBe(960);
  });
});
