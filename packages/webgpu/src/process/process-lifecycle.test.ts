// The GPU process's life without a GPU, on a stand-in child (fake-child.ts): a native abort mid-run (SIGABRT
// with a glibc message on stderr, as seen from dawn.node on the H100), a child that dies at start, one that
// hangs in init, one that ignores dispose, a missing entry, and a parent that exits without dispose.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DeviceLostError } from '@tandem/core';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeEnv, removeFakeChild, writeFakeChild, type FakeGpuMode } from './fake-child.ts';
import { createProcessWebGpuBackend, type ProcessWebGpuBackend } from './process-backend.ts';
import { processExists } from './process-test-support.ts';

const entry = writeFakeChild();
const created: ProcessWebGpuBackend[] = [];

function fake(mode: FakeGpuMode, extra: { initTimeoutMs?: number; closeGraceMs?: number } = {}): ProcessWebGpuBackend {
  const backend = createProcessWebGpuBackend({ entry, env: fakeEnv(mode), stderr: 'capture', ...extra });
  created.push(backend);
  return backend;
}

async function gone(pid: number, timeoutMs = 3_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (processExists(pid)) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

afterAll(async () => {
  await Promise.all(created.map((b) => b.dispose()));
  removeFakeChild(entry);
});

describe('GPU process lifecycle (stand-in child, no GPU needed)', () => {
  it('an abort inside the child rejects the pending run with the signal and its last stderr line; init() starts a new child', async () => {
    const backend = fake('abort-on-run');
    expect(await backend.init()).toEqual({ ok: true });
    const pid = backend.processId() ?? -1;
    const x = {
      dtype: 'f32' as const,
      shape: [4],
      buffer: await backend.upload(new Uint8Array(16), { dtype: 'f32', shape: [4] }),
    };
    const error = await backend.run({ op: 'silu', x }, [{ dtype: 'f32', shape: [4] }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceLostError);
    expect(String(error)).toMatch(
      new RegExp(
        `\\[webgpu\\] device lost: GPU process ${pid} was killed by SIGABRT; its last output: Fatal glibc error: tpp\\.c:83 .*assertion failed \\(during run silu\\)`,
      ),
    );
    expect(backend.health()).toMatchObject({ state: 'unhealthy', reason: expect.stringMatching(/killed by SIGABRT/) });
    expect(await gone(pid)).toBe(true);

    expect(await backend.init()).toEqual({ ok: true });
    expect(backend.processId()).not.toBe(pid);
    expect(backend.health()).toEqual({ state: 'healthy' });
  });

  it('upload() after a crash starts a new child by itself (as in-process re-acquires a lost device)', async () => {
    const backend = fake('abort-on-run');
    await backend.init();
    const pid = backend.processId() ?? -1;
    backend.killProcess('SIGKILL');
    expect(await gone(pid)).toBe(true);
    await backend.upload(new Uint8Array(4), { dtype: 'f32', shape: [1] });
    expect(backend.processId()).not.toBe(pid);
  });

  it('a child that exits at start: init() says how, with its stderr', async () => {
    const backend = fake('exit-at-start');
    const result = await backend.init();
    expect(result).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/exited with code 3; its last output: boom/),
    });
    expect(backend.health()).toMatchObject({ state: 'unavailable' });
  });

  it('a child that hangs in init is killed after initTimeoutMs', async () => {
    const backend = fake('silent', { initTimeoutMs: 300 });
    const result = await backend.init();
    expect(result).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/did not finish within 300 ms and was killed/),
    });
    expect(backend.processId()).toBeUndefined();
  });

  it('dispose() kills a child that ignores it, after closeGraceMs', async () => {
    const backend = fake('stubborn', { closeGraceMs: 200 });
    await backend.init();
    const pid = backend.processId() ?? -1;
    const t0 = performance.now();
    await backend.dispose();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(processExists(pid)).toBe(false);
  });

  it('a missing entry: init() names the files tried and how to build the bundled child', async () => {
    const backend = createProcessWebGpuBackend({ entry: join(dirname(entry), 'nowhere.mjs') });
    expect(await backend.init()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no GPU process entry found \(tried .*nowhere\.mjs\).*gpu-process-child\.mjs/),
    });
  });

  it('an idle proxy does not keep its parent alive, and the child ends with the parent (no orphan)', async () => {
    const script = join(dirname(entry), 'idle-parent.mts');
    const backendModule = pathToFileURL(fileURLToPath(new URL('./process-backend.ts', import.meta.url))).href;
    writeFileSync(
      script,
      `import { createProcessWebGpuBackend } from ${JSON.stringify(backendModule)};\n` +
        `const backend = createProcessWebGpuBackend({ entry: ${JSON.stringify(entry)}, env: { ...process.env, FAKE_GPU_MODE: 'serve' } });\n` +
        `const result = await backend.init();\n` +
        `console.log(JSON.stringify({ ok: result.ok, pid: backend.processId() }));\n`,
    );
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@tandem/source', '--import', tsx, script],
      { timeout: 20_000 },
    );
    const report: unknown = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(report).toMatchObject({ ok: true, pid: expect.any(Number) });
    const pid =
      typeof report === 'object' && report !== null && 'pid' in report && typeof report.pid === 'number'
        ? report.pid
        : -1;
    expect(await gone(pid)).toBe(true);
  });
});
