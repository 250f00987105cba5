// The one way a test says it needs a backend or a system part (issue 35): under CI (`CI` set, as `.ci/run` runs)
// a missing part throws, so the test file fails naming it; elsewhere it is one printed `[skip]` line and the
// caller skips with `describe.skipIf(!ok)` / `it.skipIf(!ok)`. Never `continue` or `return` past a missing part.
import { accessSync, constants } from 'node:fs';

/** Whether `path` is a program this process may run (a tool a test needs is checked so, not by its file existing). */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Skip lines already printed in this process, keyed by what was needed (module copies share it). */
const PRINTED_KEY = Symbol.for('tandem.test.requirements.printed');

/** The process-wide set of `what`s whose skip line was printed. */
function printed(): Set<string> {
  const existing: unknown = Reflect.get(globalThis, PRINTED_KEY);
  if (existing instanceof Set) return existing;
  const created = new Set<string>();
  Reflect.set(globalThis, PRINTED_KEY, created);
  return created;
}

/** True when this process runs under CI: `CI` set to anything but '', '0' or 'false'. */
export function underCi(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * True when `missing` is undefined (the part is there). When it is missing: under CI throws an Error naming
 * `what`, why (`missing`) and how to enable it; otherwise prints `[skip] <what>: <missing> (<howToEnable>)`
 * once per process per `what` and returns false.
 */
export function requireOrSkip(what: string, missing: string | undefined, howToEnable: string): boolean {
  if (missing === undefined) return true;
  if (underCi())
    throw new Error(`${what} is required under CI but is missing: ${missing}. To enable it: ${howToEnable}`);
  const seen = printed();
  if (!seen.has(what)) {
    seen.add(what);
    console.warn(`[skip] ${what}: ${missing} (${howToEnable})`);
  }
  return false;
}

/** The backends besides the reference that a test may need. */
export type TestBackendName = 'wasm' | 'webgpu' | 'rocm';

/** How to make each backend available on this machine. */
export const HOW_TO_ENABLE: Readonly<Record<TestBackendName, string>> = {
  wasm: 'npm run build -w @tandem/wasm',
  webgpu:
    'apt-get install chromium, which brings SwiftShader (/usr/lib/chromium/vk_swiftshader_icd.json); or TANDEM_TEST_GPU=native on a GPU machine',
  rocm: 'node packages/rocm/scripts/build.mjs --variant emulated (g++ only); or TANDEM_TEST_GPU=native with a built addon on a GPU machine',
};

/** The skip decision for a backend: requireOrSkip(`<name> backend`, missing, its HOW_TO_ENABLE); missing whatever its state when TANDEM_TEST_UNAVAILABLE names it. */
export function requireBackend(name: TestBackendName, missing: string | undefined): boolean {
  return requireOrSkip(`${name} backend`, madeUnavailable(name) ? UNAVAILABLE_REASON : missing, HOW_TO_ENABLE[name]);
}

/** The backends TANDEM_TEST_UNAVAILABLE may name: the test backends and the reference. */
export const UNAVAILABLE_NAMES: readonly string[] = ['reference', 'wasm', 'webgpu', 'rocm'];

/** Why a backend named by TANDEM_TEST_UNAVAILABLE is missing. */
export const UNAVAILABLE_REASON = 'made unavailable by TANDEM_TEST_UNAVAILABLE';

/**
 * Whether TANDEM_TEST_UNAVAILABLE (comma-separated names of UNAVAILABLE_NAMES) names `name`: the tests then treat
 * that backend as unable to start here, to count what notices (docs/decisions.md, issue 35). An unknown name throws.
 */
export function madeUnavailable(name: string): boolean {
  const listed = (process.env['TANDEM_TEST_UNAVAILABLE'] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const unknown = listed.filter((n) => !UNAVAILABLE_NAMES.includes(n));
  if (unknown.length > 0)
    throw new Error(`TANDEM_TEST_UNAVAILABLE=${unknown.join(',')}: not a backend (${UNAVAILABLE_NAMES.join(', ')})`);
  return listed.includes(name);
}

/** True when the tests use the machine's own GPU (TANDEM_TEST_GPU=native) instead of SwiftShader and the HIP emulation. */
export function nativeGpu(): boolean {
  return process.env['TANDEM_TEST_GPU'] === 'native';
}
