// Whether this machine has a GPU a build targets, judged by the kernel driver's device files rather than by the
// addon under test: /dev/kfd (AMD's ROCm driver) and /dev/nvidiactl (NVIDIA's). The no-device tests run where it is
// absent, the device tests where it is present, so neither fails on the other kind of machine.
import { existsSync } from 'node:fs';

/** The driver file whose presence means a GPU of that vendor is here. */
const DRIVER_FILE: Readonly<Record<'amd' | 'nvidia', string>> = { amd: '/dev/kfd', nvidia: '/dev/nvidiactl' };

/** True when a GPU of `variant`'s vendor is here. */
export function gpuPresent(variant: 'amd' | 'nvidia'): boolean {
  return existsSync(DRIVER_FILE[variant]);
}
