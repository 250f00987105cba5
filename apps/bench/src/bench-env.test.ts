// The bench CLI's environment: SwiftShader for WebGPU unless --gpu, and never over what the user set.
import { describe, expect, it } from 'vitest';
import { softwareGpuUnlessGpu } from './bench-env.ts';

describe('softwareGpuUnlessGpu', () => {
  it('sets TANDEM_WEBGPU=swiftshader without --gpu', () => {
    const env: Record<string, string | undefined> = {};
    softwareGpuUnlessGpu(false, env);
    expect(env['TANDEM_WEBGPU']).toBe('swiftshader');
  });

  it('leaves it unset with --gpu (Dawn then finds the real GPU), and keeps a value the user gave', () => {
    const gpu: Record<string, string | undefined> = {};
    softwareGpuUnlessGpu(true, gpu);
    expect(gpu['TANDEM_WEBGPU']).toBeUndefined();
    const given: Record<string, string | undefined> = { TANDEM_WEBGPU: 'other' };
    softwareGpuUnlessGpu(false, given);
    expect(given['TANDEM_WEBGPU']).toBe('other');
  });
});
