// Runs one of the repository's scripts in a child node from the repository root (a .ts file under tsx with the
// '@tandem/source' condition, as the package.json scripts run them), for tests that check a command line's behaviour.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** How a script run ended. */
export interface ScriptRun {
  /** Exit code (null when a signal ended it). */
  readonly code: number | null;
  /** What it printed on stdout. */
  readonly stdout: string;
  /** What it printed on stderr. */
  readonly stderr: string;
}

/** Runs `file` (a path from the repository root) with `args`; `nodeFlags` go before it (e.g. --expose-gc). */
export function runScript(
  file: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): Promise<ScriptRun> {
  const loader = file.endsWith('.ts') ? ['-C', '@tandem/source', '--import', 'tsx'] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, ...loader, file, ...args], {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
