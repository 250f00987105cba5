// createEngine: the default backend lists, factories that fail or hang, forceCpu that never starts a GPU, and the
// environment switches.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ReferenceBackend } from '@tandem/reference';
import { describe, expect, it } from 'vitest';
import { createEngineWith, FORCE_CPU_REASON } from './create-engine.ts';
import { BROWSER_BACKENDS, type BackendFactory } from './default-backends.ts';
import { forceCpuFromEnv, readEnv } from './env.ts';
import { createEngine as createBrowserEngine } from './index.ts';
import { NODE_BACKENDS } from './node-backends.ts';
import { UnavailableBackend } from './unavailable-backend.ts';

const reference: BackendFactory = { name: 'reference', kind: 'cpu', create: async () => new ReferenceBackend() };

/** No profile store: these tests are about backends. */
const noStore = (): undefined => undefined;

/** A GPU factory that counts its calls and then throws, or never settles. */
function gpuFactory(name: string, behaviour: 'throw' | 'hang'): BackendFactory & { calls: number } {
  const factory = {
    name,
    kind: 'gpu' as const,
    calls: 0,
    create: async () => {
      factory.calls++;
      if (behaviour === 'throw') throw new Error(`${name} driver crashed`);
      return new Promise<never>(() => undefined);
    },
  };
  return factory;
}

describe('createEngine', () => {
  it('lists each host default in preference order, GPUs marked as such', () => {
    expect(NODE_BACKENDS.map((f) => `${f.name}:${f.kind}`)).toEqual([
      'rocm:gpu',
      'wasm:cpu',
      'webgpu:gpu',
      'reference:cpu',
    ]);
    expect(BROWSER_BACKENDS.map((f) => `${f.name}:${f.kind}`)).toEqual(['wasm:cpu', 'webgpu:gpu', 'reference:cpu']);
  });

  it('lists a backend whose factory failed as unavailable, with the reason, and serves from the rest', async () => {
    const broken = gpuFactory('gpu', 'throw');
    const engine = await createEngineWith([broken, reference], noStore);
    expect(engine.backends().map((b) => [b.name, b.kind, b.available, b.unavailableReason])).toEqual([
      ['gpu', 'gpu', false, 'gpu driver crashed'],
      ['reference', 'cpu', true, undefined],
    ]);
    expect(await (await engine.scale(engine.tensor([2], [1]), 3)).read()).toEqual(new Float32Array([6]));
    await engine.dispose();
  });

  it('under forceCpu never calls a GPU factory, not even one that would hang', async () => {
    const crashing = gpuFactory('crashing', 'throw');
    const hanging = gpuFactory('hanging', 'hang');
    const engine = await createEngineWith([crashing, hanging, reference], noStore, { forceCpu: true });
    expect(crashing.calls + hanging.calls).toBe(0);
    expect(
      engine
        .backends()
        .filter((b) => b.kind === 'gpu')
        .map((b) => b.unavailableReason),
    ).toEqual([FORCE_CPU_REASON, FORCE_CPU_REASON]);
    await engine.dispose();
    // The same factories without forceCpu: the crashing one is called (the hanging one would block creation).
    await (await createEngineWith([crashing, reference], noStore)).dispose();
    expect(crashing.calls).toBe(1);
  });

  it('under forceCpu never initialises a GPU backend it is handed, not even one whose init would hang', async () => {
    let inits = 0;
    const hanging = new UnavailableBackend('hanging', 'gpu', 'unused');
    hanging.init = () => {
      inits++;
      return new Promise<never>(() => undefined);
    };
    const engine = await createEngineWith([], noStore, { backends: [hanging, new ReferenceBackend()], forceCpu: true });
    expect(inits).toBe(0);
    expect(engine.backends().map((b) => [b.name, b.available, b.unavailableReason])).toEqual([
      ['hanging', false, FORCE_CPU_REASON],
      ['reference', true, undefined],
    ]);
    expect(await (await engine.scale(engine.tensor([2], [1]), 3)).read()).toEqual(new Float32Array([6]));
    await engine.dispose();
  });

  it('reads TANDEM_FORCE_CPU as a switch', () => {
    const saved = process.env['TANDEM_FORCE_CPU'];
    try {
      for (const [value, on] of [
        ['1', true],
        ['true', true],
        ['YES', true],
        ['0', false],
        ['', false],
        ['no', false],
      ] as const) {
        process.env['TANDEM_FORCE_CPU'] = value;
        expect(forceCpuFromEnv()).toBe(on);
      }
      delete process.env['TANDEM_FORCE_CPU'];
      expect(forceCpuFromEnv()).toBe(false);
      expect(readEnv('TANDEM_FORCE_CPU')).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env['TANDEM_FORCE_CPU'];
      else process.env['TANDEM_FORCE_CPU'] = saved;
    }
  });

  it('in a browser entry without navigator.gpu, lists WebGPU as unavailable and says why', async () => {
    const engine = await createBrowserEngine();
    const webgpu = engine.backends().find((b) => b.name === 'webgpu');
    expect(webgpu?.available).toBe(false);
    expect(webgpu?.unavailableReason).toMatch(/^navigator\.gpu is not available/);
    expect(engine.backends().find((b) => b.name === 'wasm')?.available).toBe(true);
    await engine.dispose();
  });
});

describe('forceCpu in a Node process', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const rocmBuilt = ['amd', 'nvidia'].some((v) => existsSync(`${root}packages/rocm/build/${v}/tandem_rocm.node`));

  /** The native libraries a fresh process has mapped after createEngine(options). */
  function nativeLibrariesAfter(options: string): string[] {
    const code = `import { createEngine } from 'tandem'; import { readFileSync } from 'node:fs';
      const engine = await createEngine(${options});
      const maps = readFileSync('/proc/self/maps', 'utf8');
      console.log(JSON.stringify(['dawn.node', 'tandem_rocm.node'].filter((name) => maps.includes(name))));
      await engine.dispose(); process.exit(0);`;
    const out = execFileSync(
      process.execPath,
      ['--conditions=@tandem/source', '--import', 'tsx', '--input-type=module', '-e', code],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, TANDEM_FORCE_CPU: '' },
        timeout: 60_000,
      },
    );
    return JSON.parse(out.trim().split('\n').at(-1) ?? '[]');
  }

  it.skipIf(process.platform !== 'linux')(
    'loads neither dawn.node nor the HIP addon, which a default engine does load',
    () => {
      expect(nativeLibrariesAfter('{ forceCpu: true }')).toEqual([]);
      expect(nativeLibrariesAfter('{}')).toEqual(rocmBuilt ? ['dawn.node', 'tandem_rocm.node'] : ['dawn.node']);
    },
  );
});
