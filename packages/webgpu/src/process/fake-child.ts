// A stand-in GPU process for lifecycle tests that need no GPU: plain JavaScript (runs under plain Node)
// speaking the protocol just enough, with the failure chosen by FAKE_GPU_MODE:
//   serve          answers init, describe, health, upload and dispose; 'run' as below
//   abort-on-run   on 'run', writes a glibc-style fatal error to stderr and calls process.abort() (SIGABRT)
//   exit-at-start  writes "boom" to stderr and exits with code 3 before answering anything
//   silent         never answers (a hung init)
//   stubborn       serves, but ignores 'dispose' and stays alive (dispose must kill it)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Failure modes of the fake child. */
export type FakeGpuMode = 'serve' | 'abort-on-run' | 'exit-at-start' | 'silent' | 'stubborn';

const SOURCE = String.raw`
const mode = process.env.FAKE_GPU_MODE;
const health = { state: 'healthy' };
const description = { name: 'fake GPU', features: [], maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28, software: true };
if (mode === 'exit-at-start') {
  process.stderr.write('boom\n');
  process.exit(3);
}
let nextBuffer = 1;
process.on('message', (m) => {
  if (mode === 'silent') return;
  const reply = (result) => process.send({ id: m.id, ok: true, result, health });
  switch (m.type) {
    case 'init': return reply({ ok: true });
    case 'describe': return reply({ description, limits: undefined });
    case 'health': return reply(null);
    case 'upload': return reply({ id: nextBuffer++, byteLength: m.data.byteLength });
    case 'dispose': return mode === 'stubborn' ? undefined : process.send({ id: m.id, ok: true, result: null, health }, () => process.exit(0));
    case 'run':
      if (mode === 'abort-on-run') {
        process.stderr.write('Fatal glibc error: tpp.c:83 (__pthread_tpp_change_priority): assertion failed\n', () => process.abort());
      }
      return;
  }
});
if (mode !== 'stubborn') process.on('disconnect', () => process.exit(0));
`;

/** Writes the fake child to a new temporary folder and returns its path (.mjs: no loader needed). */
export function writeFakeChild(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tandem-fake-gpu-')), 'fake-gpu-process.mjs');
  writeFileSync(file, SOURCE);
  return file;
}

/** The environment that selects a mode. */
export function fakeEnv(mode: FakeGpuMode): NodeJS.ProcessEnv {
  return { ...process.env, FAKE_GPU_MODE: mode };
}

/** Removes the folder writeFakeChild made (and anything else a test wrote there). */
export function removeFakeChild(file: string): void {
  rmSync(dirname(file), { recursive: true, force: true });
}
