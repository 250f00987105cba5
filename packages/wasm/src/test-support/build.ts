// Test setup: builds the kernels when dist/ is missing or stale (a no-op in ~0.1 s when up to date).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

let built = false;

/** Runs scripts/build.mjs once per test process; throws with asc's output when the build fails. */
export function ensureKernelsBuilt(): void {
  if (built) return;
  const script = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
  try {
    execFileSync(process.execPath, [script], { stdio: 'pipe', timeout: 120_000 });
  } catch (error) {
    const stderr = error instanceof Error ? String(Reflect.get(error, 'stderr') ?? '') : '';
    throw new Error(`@tandem/wasm tests need the kernels and building them failed:\n${stderr || String(error)}`);
  }
  built = true;
}
