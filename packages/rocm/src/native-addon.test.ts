// The built addons themselves (a build this machine can make is required under CI: test-support/device.ts): enumeration never throws; where the build's GPU is
// absent (its driver's device file, test-support/device.ts) it finds none and opening one throws an Error carrying
// the runtime's error name, where it is present it finds one; its kernels are the kernel table's natives.
import { describe, expect, it } from 'vitest';
import { ADDON_VARIANTS, loadAddon, variantPath } from './index.ts';
import { NATIVE_PARAMS } from './kernel-table.ts';
import { parameterDrift } from './native-params.ts';
import { buildPresent, gpuPresent } from './test-support/device.ts';

for (const variant of ADDON_VARIANTS) {
  const path = variantPath(variant);
  describe.skipIf(!buildPresent(variant))(`tandem_rocm.node (${variant})`, () => {
    it.skipIf(gpuPresent(variant))(
      'without its GPU: loads, enumerates no device without throwing, and refuses to open one',
      () => {
        const load = loadAddon(path);
        if (!load.ok) throw new Error(load.reason);
        const addon = load.addon;
        expect(addon.platform).toBe(variant);
        const list = addon.devices();
        expect(list.count).toBe(0);
        expect(list.devices).toEqual([]);
        expect(list.error).toMatch(
          variant === 'amd' ? /^hipErrorNoDevice$/ : /^cudaError(NoDevice|InsufficientDriver)$/,
        );
        let thrown: unknown;
        try {
          new addon.Device(0);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(Error);
        expect(Reflect.get(Object(thrown), 'code')).toMatch(/^(hip|cuda)Error/);
      },
    );

    it.skipIf(!gpuPresent(variant))('with its GPU: enumerates at least one device and opens device 0', () => {
      const load = loadAddon(path);
      if (!load.ok) throw new Error(load.reason);
      const list = load.addon.devices();
      expect(list.count).toBeGreaterThan(0);
      const device = new load.addon.Device(0);
      device.close();
    });

    it('offers exactly the kernels the backend calls, each with the parameters the backend passes', () => {
      const load = loadAddon(path);
      if (!load.ok) throw new Error(load.reason);
      const kernels = load.addon.kernels();
      expect(kernels.map((k) => k.name).sort()).toEqual([...NATIVE_PARAMS.keys()].sort());
      expect(parameterDrift(NATIVE_PARAMS, kernels)).toEqual([]);
    });
  });
}
