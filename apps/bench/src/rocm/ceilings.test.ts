import { describe, expect, it } from 'vitest';
import { explainCublasFailure, parseCublasOutput, parseMemoryClockMHz } from './ceilings.ts';
import { addonPathsFor } from './setup.ts';

describe('ROCm suite ceilings and setup', () => {
  it("parses cublas-ceiling.py's JSON line", () => {
    const out =
      'warning: something\n{"device": "NVIDIA H100 80GB HBM3", "torch": "2.5", "sgemm_4096": {"ms": 2.7, "tflops": 50.9}, "scale_1GiB": {"ms": 0.8, "tbps": 2.95}, "gemv_1Mx768": {"ms": 1, "tbps": 3.07}}\n';
    expect(parseCublasOutput(out)).toEqual({
      ok: true,
      value: { device: 'NVIDIA H100 80GB HBM3', sgemm4096Tflops: 50.9, scaleTbps: 2.95, gemvTbps: 3.07 },
    });
    expect(parseCublasOutput('{"device": "x"}').ok).toBe(false);
    expect(parseCublasOutput('').ok).toBe(false);
  });

  it('names why the script gave nothing', () => {
    expect(explainCublasFailure(null, '', 'spawnSync python3 ENOENT')).toBe('python3 is not installed');
    expect(explainCublasFailure(1, "Traceback...\nModuleNotFoundError: No module named 'torch'\n", undefined)).toBe(
      'torch is not installed for python3',
    );
    expect(explainCublasFailure(1, 'RuntimeError: Found no NVIDIA driver on your system.', undefined)).toMatch(
      /^torch found no usable CUDA device/,
    );
  });

  it("reads nvidia-smi's memory clock", () => {
    expect(parseMemoryClockMHz('2619\n')).toBe(2619);
    expect(parseMemoryClockMHz('[N/A]\n')).toBeUndefined();
    expect(parseMemoryClockMHz('')).toBeUndefined();
  });

  it('tries the explicit addon alone, else the GPU builds with --gpu and the emulation without', () => {
    expect(addonPathsFor(true, '/x/addon.node', ['/r'])).toEqual(['/x/addon.node']);
    expect(addonPathsFor(true, undefined, ['/r'])).toEqual([
      '/r/packages/rocm/build/nvidia/tandem_rocm.node',
      '/r/packages/rocm/build/amd/tandem_rocm.node',
    ]);
    expect(addonPathsFor(false, '', ['/r'])).toEqual(['/r/packages/rocm/build/emulated/tandem_rocm.node']);
  });
});
