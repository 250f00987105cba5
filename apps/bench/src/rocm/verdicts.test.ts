import { describe, expect, it } from 'vitest';
import { targetVerdict, type FigureSource } from './verdicts.ts';

const gpu: FigureSource = { kind: 'gpu', device: 'NVIDIA H100 80GB HBM3' };

describe('ROCm suite verdicts', () => {
  it('says MET or MISSED on a GPU, naming the target and the figure', () => {
    expect(targetVerdict({ label: 'matmul', measured: 43, target: 25, unit: 'TFLOP/s' }, gpu)).toBe(
      'matmul: 43.00 TFLOP/s (target >= 25.00 TFLOP/s) on NVIDIA H100 80GB HBM3 -> MET',
    );
    expect(targetVerdict({ label: 'q4', measured: 39, target: 60, unit: '%', detail: '1160 GB/s' }, gpu)).toBe(
      'q4: 39.00 %; 1160 GB/s (target >= 60.00 %) on NVIDIA H100 80GB HBM3 -> MISSED',
    );
  });

  it('never says MET for wrong results', () => {
    const line = targetVerdict(
      { label: 'cosine', measured: 2.9, target: 2, unit: 'TB/s', wrongResults: 'FAILED at 3' },
      gpu,
    );
    expect(line).toMatch(/-> MISSED: results wrong \(FAILED at 3\)$/);
  });

  it('says NOT MEASURED on the emulation and when a measurement failed', () => {
    expect(
      targetVerdict({ label: 'matmul', measured: 1e-5, target: 25, unit: 'TFLOP/s' }, { kind: 'emulated' }),
    ).toMatch(/^matmul: NOT MEASURED \(target >= 25\.00 TFLOP\/s\): figures are the CPU emulation's, not a GPU's/);
    expect(
      targetVerdict(
        { label: 'ratio', measured: 'cuBLAS skipped: torch is not installed', target: 0.5, unit: 'x' },
        gpu,
      ),
    ).toBe('ratio: NOT MEASURED (target >= 0.500 x): cuBLAS skipped: torch is not installed');
  });
});
