// @tandem/rocm as a user installs it: its tarball ships the HIP sources and the build script; a build that fails never
// fails `npm install`, and `npx tandem-rocm-build` with a real compiler makes an addon that the engine loads (on this
// GPU-less machine it then reports that there is no device, which only a loaded addon can say).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isExecutable, requireOrSkip } from '../support/requirements.ts';
import { consumerProject, type ConsumerProject } from './support/project.ts';

/** Prints the rocm backend's status as the engine sees it. */
const STATUS = `import { createEngine } from 'tandem';
const engine = await createEngine();
const rocm = engine.backends().find((b) => b.name === 'rocm');
console.log(JSON.stringify({ available: rocm?.available, reason: rocm?.unavailableReason ?? null }));
await engine.dispose();
`;

/** Why the AMD build can't run here (the build script's own rule: hipcc and the HIP headers), or undefined. */
function hipccMissing(): string | undefined {
  if (!['/usr/bin/hipcc', '/opt/rocm/bin/hipcc'].some(isExecutable)) return 'hipcc not found';
  return existsSync('/usr/include/hip/hip_runtime.h') ? undefined : '/usr/include/hip/hip_runtime.h not found';
}

describe('@tandem/rocm from its tarball', () => {
  let project: ConsumerProject | undefined;
  // Every compiler replaced by one that fails: the install script's build fails, and the install must not.
  const failingCompilers = { HIPCC: '/bin/false', NVCC: '/bin/false' };

  beforeAll(async () => {
    const saved = { HIPCC: process.env['HIPCC'], NVCC: process.env['NVCC'] };
    Object.assign(process.env, failingCompilers);
    try {
      project = await consumerProject('rocm', {
        tarballs: ['tandem', '@tandem/rocm'],
        files: { 'status.mjs': STATUS },
      });
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }, 600_000);
  afterAll(() => project?.remove());

  it('installs although the addon failed to build, and the engine says how to build it', async () => {
    const ran = await project?.run('node', ['status.mjs']);
    expect(JSON.parse(ran?.stdout ?? '{}')).toEqual({
      available: false,
      reason: expect.stringMatching(
        /^the ROCm addon is not built: run `npx tandem-rocm-build` \(needs hipcc or nvcc\)/,
      ),
    });
  });

  it('npx tandem-rocm-build with a failing compiler exits non-zero and names the failure', async () => {
    const ran = await project?.run('npx', ['tandem-rocm-build', '--variant', 'amd'], failingCompilers);
    expect(ran?.code).not.toBe(0);
    expect(ran?.stderr).toMatch(/amd/);
  });

  const hipcc = requireOrSkip(
    'hipcc (the AMD build of the HIP addon)',
    hipccMissing(),
    'apt-get install -y --no-install-recommends hipcc libamdhip64-dev',
  );
  it.skipIf(!hipcc)(
    'npx tandem-rocm-build with hipcc builds an addon that loads (and finds no device here)',
    async () => {
      const built = await project?.run('npx', ['tandem-rocm-build', '--variant', 'amd'], {
        TANDEM_HIP_ARCHS: 'gfx90a',
        HIP_PLATFORM: 'amd',
      });
      expect(built?.stdout).toMatch(
        /@tandem\/rocm: built .*build\/amd\/tandem_rocm\.node \(amd, gfx90a, (\d+)\/\1 sources compiled/,
      );
      const ran = await project?.run('node', ['status.mjs']);
      expect(JSON.parse(ran?.stdout ?? '{}')).toEqual({
        available: false,
        reason: expect.stringMatching(/^no usable ROCm\/HIP device: amd build: no device \(hipErrorNoDevice/),
      });
    },
    600_000,
  );
});
