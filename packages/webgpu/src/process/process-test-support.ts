// Test helpers for the GPU process: a proxy on SwiftShader (or the machine's GPU with TANDEM_TEST_GPU=native), or the
// skip decision when it cannot start (one [skip] line outside CI, a failure under CI); and the child processes of
// this process, to prove none is left behind.
import { readdirSync, readFileSync } from 'node:fs';
import { nativeGpu, requireBackend } from '../../../../test/support/requirements.ts';
import { webGpuMissing } from '../test-support/gpu.ts';
import { createProcessWebGpuBackend, type ProcessWebGpuBackend, type ProcessWebGpuOptions } from './process-backend.ts';

/** An initialised proxy, or why the tests are skipped (outside CI only). */
export type TestProxy =
  | { readonly ok: true; readonly backend: ProcessWebGpuBackend }
  | { readonly ok: false; readonly reason: string };

/** Starts a proxy for tests (SwiftShader in the child unless TANDEM_TEST_GPU=native). */
export async function createTestProxy(options: ProcessWebGpuOptions = {}): Promise<TestProxy> {
  const missing = webGpuMissing();
  if (!requireBackend('webgpu', missing)) return { ok: false, reason: missing ?? 'unknown' };
  const backend = createProcessWebGpuBackend({ swiftShader: !nativeGpu(), stderr: 'capture', ...options });
  const init = await backend.init();
  if (init.ok) return { ok: true, backend };
  await backend.dispose();
  requireBackend('webgpu', `the GPU process did not start: ${init.reason}`);
  return { ok: false, reason: init.reason };
}

/** Process ids whose parent is `pid` (Linux /proc; an empty list elsewhere). */
export function childProcessIds(pid: number = process.pid): number[] {
  if (process.platform !== 'linux') return [];
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may contain spaces, so parse after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

/** Whether a process with this id still exists (a zombie counts until its parent reaps it). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
