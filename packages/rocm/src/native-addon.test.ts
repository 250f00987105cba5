// The built addons themselves (skipped when none is built): enumeration never throws; where the build's GPU is
// absent (its driver's device file, test-support/device.ts) it finds none and opening one throws an Error carrying
// the runtime's error name, where it is present it finds one; the kernel table matches what encodeOp emits.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADDON_VARIANTS, loadAddon, variantPath } from './index.ts';
import { gpuPresent } from './test-support/device.ts';

/** Every kernel id encodeOp can produce (ops x dtypes of the capability table). */
const EXPECTED_KERNELS = [
  'matmul_f32',
  'matmul_f16',
  'quantized_matmul_q8_0',
  'quantized_matmul_q4_0',
  'dequantize_q8_0',
  'dequantize_q4_0',
  'dequantize_f16',
  'add_f32',
  'add_f16',
  'mul_f32',
  'mul_f16',
  'scale_f32',
  'scale_f16',
  'silu_f32',
  'swiglu_f32',
  'softmax_f32',
  'rms_norm_f32',
  'rope_f32',
  'attention_f32',
  'cosine_similarity_f32',
  'top_k_f32',
  'spread_activation',
  'concat',
];

for (const variant of ADDON_VARIANTS) {
  const path = variantPath(variant);
  describe.skipIf(!existsSync(path))(`tandem_rocm.node (${variant})`, () => {
    it.skipIf(gpuPresent(variant))('without its GPU: loads, enumerates no device without throwing, and refuses to open one', () => {
      const load = loadAddon(path);
      if (!load.ok) throw new Error(load.reason);
      const addon = load.addon;
      expect(addon.platform).toBe(variant);
      const list = addon.devices();
      expect(list.count).toBe(0);
      expect(list.devices).toEqual([]);
      expect(list.error).toMatch(variant === 'amd' ? /^hipErrorNoDevice$/ : /^cudaError(NoDevice|InsufficientDriver)$/);
      let thrown: unknown;
      try {
        new addon.Device(0);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect(Reflect.get(Object(thrown), 'code')).toMatch(/^(hip|cuda)Error/);
    });

    it.skipIf(!gpuPresent(variant))('with its GPU: enumerates at least one device and opens device 0', () => {
      const load = loadAddon(path);
      if (!load.ok) throw new Error(load.reason);
      const list = load.addon.devices();
      expect(list.count).toBeGreaterThan(0);
      const device = new load.addon.Device(0);
      device.close();
    });

    it('offers exactly the kernels the backend calls', () => {
      const load = loadAddon(path);
      if (!load.ok) throw new Error(load.reason);
      expect([...load.addon.kernels()].sort()).toEqual([...EXPECTED_KERNELS].sort());
    });
  });
}
