// Test helpers for the GPU process: a proxy on SwiftShader (or the machine's GPU with TANDEM_TEST_GPU=native),
// or a printed reason to skip; and the child processes of this process, to prove none is left behind.
import { readdirSync, readFileSync } from 'node:fs';
import { useSwiftShader } from '../swiftshader.ts';
import { createProcessWebGpuBackend, type ProcessWebGpuBackend, type ProcessWebGpuOptions } from './process-backend.ts';

/** An initialised proxy, or why the tests are skipped. */
export type TestProxy = { readonly ok: true; readonly backend: ProcessWebGpuBackend } | { readonly ok: false; readonly reason: string };

/** Starts a proxy for tests (SwiftShader in the child unless TANDEM_TEST_GPU=native); prints the reason when it can't. */
export async function createTestProxy(options: ProcessWebGpuOptions = {}): Promise<TestProxy> {
  const native = process.env['TANDEM_TEST_GPU'] === 'native';
  if (!native) {
    const software = useSwiftShader();
    if (!software.ok) return skip(software.reason);
  }
  const backend = createProcessWebGpuBackend({ swiftShader: !native, stderr: 'capture', ...options });
  const init = await backend.init();
  if (!init.ok) {
    await backend.dispose();
    return skip(init.reason);
  }
  return { ok: true, backend };
}

function skip(reason: string): TestProxy {
  console.warn(`[gpu-process tests] skipped: ${reason}`);
  return { ok: false, reason };
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
