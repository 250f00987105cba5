import { spawn } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReferenceBackend } from '@tandem/reference';
import { describe, expect, it } from 'vitest';
import { createEngine } from './node.ts';
import { defaultProfileDir, FileProfileStore } from './profile-file-store.ts';

const tempDir = (): Promise<string> => mkdtemp(path.join(os.tmpdir(), 'tandem-profile-'));

/** With TANDEM_PROFILE and TANDEM_PROFILE_DIR set for the duration of `body` (the test config turns profiles off). */
async function withProfileEnv<T>(dir: string, body: () => Promise<T>): Promise<T> {
  const saved = { profile: process.env['TANDEM_PROFILE'], dir: process.env['TANDEM_PROFILE_DIR'] };
  process.env['TANDEM_PROFILE'] = 'auto';
  process.env['TANDEM_PROFILE_DIR'] = dir;
  try {
    return await body();
  } finally {
    for (const [name, value] of [
      ['TANDEM_PROFILE', saved.profile],
      ['TANDEM_PROFILE_DIR', saved.dir],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

describe('FileProfileStore', () => {
  it('saves and loads by key, and has nothing for a key never saved', async () => {
    const store = new FileProfileStore(path.join(await tempDir(), 'nested', 'tandem'));
    expect(await store.load('profile-00000001')).toBeUndefined();
    await store.save('profile-00000001', '{"a":1}');
    await store.save('profile-00000001', '{"a":2}');
    expect(await store.load('profile-00000001')).toBe('{"a":2}');
    expect(await readdir(store.where)).toEqual(['profile-00000001.json']); // no temporary file left
  });

  it('refuses with the reason where the folder cannot be made (a file in the way, as a read-only or full disk refuses)', async () => {
    const blocker = path.join(await tempDir(), 'a-file');
    await writeFile(blocker, 'not a folder');
    const store = new FileProfileStore(path.join(blocker, 'tandem'));
    await expect(store.save('profile-00000001', '{}')).rejects.toThrow(/ENOTDIR|EEXIST/);
  });

  it('two processes saving the same profile at once: every read sees one whole profile, never a mix', async () => {
    const dir = await tempDir();
    const storeModule = fileURLToPath(new URL('./profile-file-store.ts', import.meta.url));
    const writer = (id: string): string => `
      const { FileProfileStore } = await import(${JSON.stringify(storeModule)});
      const store = new FileProfileStore(${JSON.stringify(dir)});
      const text = JSON.stringify({ writer: '${id}', pad: '${id}'.repeat(200_000) });
      for (let i = 0; i < 40; i++) await store.save('profile-0000beef', text);`;
    const store = new FileProfileStore(dir);
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const text = await store.load('profile-0000beef');
        if (text !== undefined) {
          const parsed: unknown = JSON.parse(text); // a torn file would not parse
          expect(parsed).toMatchObject({ writer: expect.stringMatching(/^[ab]$/) });
          reads++;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const tsx = ['--import', 'tsx'];
    const run = (id: string) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [...tsx, '--input-type=module', '-e', writer(id)], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        child.on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`writer ${id}: exit ${code}: ${stderr}`)),
        );
      });
    try {
      await Promise.all([run('a'), run('b')]);
    } finally {
      writing = false;
      await reader;
    }
    expect(reads).toBeGreaterThan(0);
    expect(JSON.parse((await store.load('profile-0000beef')) ?? '')).toMatchObject({
      writer: expect.stringMatching(/^[ab]$/),
    });
    expect(await readdir(dir)).toEqual(['profile-0000beef.json']);
  }, 60_000);

  it('defaults under $XDG_CACHE_HOME or ~/.cache (Linux), unless TANDEM_PROFILE_DIR says where', () => {
    const saved = { xdg: process.env['XDG_CACHE_HOME'], dir: process.env['TANDEM_PROFILE_DIR'] };
    try {
      delete process.env['TANDEM_PROFILE_DIR'];
      process.env['XDG_CACHE_HOME'] = '/tmp/xdg-cache';
      if (process.platform === 'linux') expect(defaultProfileDir()).toBe('/tmp/xdg-cache/tandem');
      process.env['XDG_CACHE_HOME'] = 'relative/ignored';
      if (process.platform === 'linux') expect(defaultProfileDir()).toBe(path.join(os.homedir(), '.cache', 'tandem'));
      process.env['TANDEM_PROFILE_DIR'] = '/srv/profiles';
      expect(defaultProfileDir()).toBe('/srv/profiles');
    } finally {
      if (saved.xdg === undefined) delete process.env['XDG_CACHE_HOME'];
      else process.env['XDG_CACHE_HOME'] = saved.xdg;
      if (saved.dir === undefined) delete process.env['TANDEM_PROFILE_DIR'];
      else process.env['TANDEM_PROFILE_DIR'] = saved.dir;
    }
  });
});

describe("createEngine's profile: 'auto' in Node", () => {
  it('saves on dispose to the cache folder and the next engine starts from it', async () => {
    const dir = await tempDir();
    await withProfileEnv(dir, async () => {
      const first = await createEngine({ backends: [new ReferenceBackend()] });
      const a = first.tensor(new Float32Array(64 * 64).fill(1), [64, 64]);
      for (let i = 0; i < 4; i++) await (await first.matmul(a, a)).read();
      await first.dispose();
      expect(await readdir(dir)).toEqual([expect.stringMatching(/^profile-[0-9a-f]{8}\.json$/)]);
      const second = await createEngine({ backends: [new ReferenceBackend()] });
      const loaded = second.telemetry.noticeEvents().filter((n) => n.kind === 'profile-loaded');
      expect(loaded[0]?.detail).toContain(dir);
      await second.dispose();
      const off = await createEngine({ backends: [new ReferenceBackend()], profile: false });
      expect(off.telemetry.noticeEvents().filter((n) => n.kind.startsWith('profile-'))).toEqual([]);
      await off.dispose();
    });
  });
});
