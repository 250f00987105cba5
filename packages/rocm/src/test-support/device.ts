// Whether this machine has a GPU a build targets, judged by the kernel driver's device files rather than by the
// addon under test: /dev/kfd (AMD's ROCm driver) and /dev/nvidiactl (NVIDIA's). The no-device tests run where it is
// absent, the device tests where it is present, so neither fails on the other kind of machine. And whether a build is
// here: one this machine can make is required under CI, one [skip] line elsewhere, never a silent skip.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { requireOrSkip } from '../../../../test/support/requirements.ts';
import { variantPath } from '../load-addon.ts';

/** The driver file whose presence means a GPU of that vendor is here. */
const DRIVER_FILE: Readonly<Record<'amd' | 'nvidia', string>> = { amd: '/dev/kfd', nvidia: '/dev/nvidiactl' };

/** True when a GPU of `variant`'s vendor is here. */
export function gpuPresent(variant: 'amd' | 'nvidia'): boolean {
  return existsSync(DRIVER_FILE[variant]);
}

/** The compiler each build needs, and how to get it and build. */
const BUILD: Readonly<Record<'amd' | 'nvidia', { readonly compiler: string; readonly howToEnable: string }>> = {
  amd: {
    compiler: 'hipcc',
    howToEnable:
      'apt-get install -y --no-install-recommends hipcc libamdhip64-dev, then node packages/rocm/scripts/build.mjs --variant amd',
  },
  nvidia: { compiler: 'nvcc', howToEnable: 'node packages/rocm/scripts/build.mjs --variant nvidia (nvcc is on PATH)' },
};

/** Whether `command` is a file in a PATH directory. */
function onPath(command: string): boolean {
  return (process.env['PATH'] ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, command)));
}

/**
 * Whether `variant`'s addon is built here. The AMD build (which `.ci/run` installs hipcc for) and the NVIDIA build
 * where nvcc is installed go through requireOrSkip: missing under CI fails, elsewhere one [skip] line. Without nvcc
 * the NVIDIA build cannot be made here, and its tests do not apply (false, no line).
 */
export function buildPresent(variant: 'amd' | 'nvidia'): boolean {
  const path = variantPath(variant);
  if (existsSync(path)) return true;
  const { compiler, howToEnable } = BUILD[variant];
  if (variant === 'nvidia' && !onPath(compiler)) return false;
  return requireOrSkip(`the ${variant} build of the HIP addon`, `no build at ${path}`, howToEnable);
}
