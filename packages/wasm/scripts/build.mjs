// Builds the AssemblyScript kernels in wasm-kernels/ into packages/wasm/dist/, one .wasm per feature set:
//   tandem-simd.wasm              SIMD128                         (every current engine)
//   tandem-relaxed.wasm           SIMD128 + relaxed-simd FMA       (chosen when WebAssembly.validate accepts it)
//   tandem-simd-threads.wasm      + threads, shared imported memory (worker pool)
//   tandem-relaxed-threads.wasm   relaxed + threads
// Offline and local (asc from node_modules). Skips work when every output is newer than every source;
// `--force` rebuilds. Usage: node packages/wasm/scripts/build.mjs [--force] [--only simd,relaxed]
import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, stat, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const kernelsDir = fileURLToPath(new URL('../../../wasm-kernels/', import.meta.url));
const distDir = fileURLToPath(new URL('../dist/', import.meta.url));
const entry = `${kernelsDir}index.ts`;
const common = ['-O3', '--noAssert', '--runtime', 'stub', '--importMemory', '--enable', 'simd'];
const threaded = ['--enable', 'threads', '--sharedMemory', '--maximumMemory', '65536'];

/** Every build: output file name and the extra asc flags. */
export const BUILDS = [
  { name: 'simd', file: 'tandem-simd.wasm', flags: [] },
  { name: 'relaxed', file: 'tandem-relaxed.wasm', flags: ['--enable', 'relaxed-simd'] },
  { name: 'simd-threads', file: 'tandem-simd-threads.wasm', flags: threaded },
  { name: 'relaxed-threads', file: 'tandem-relaxed-threads.wasm', flags: ['--enable', 'relaxed-simd', ...threaded] },
];

async function newestSourceMs() {
  const names = (await readdir(kernelsDir, { recursive: true })).filter(
    (n) => n.endsWith('.ts') || n.endsWith('.json'),
  );
  const times = await Promise.all(
    [...names.map((n) => `${kernelsDir}${n}`), fileURLToPath(import.meta.url)].map(
      async (p) => (await stat(p)).mtimeMs,
    ),
  );
  return Math.max(...times);
}

async function mtimeMs(path) {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return -Infinity;
  }
}

/** Compiles one build to a temporary file, then renames it into place (readers never see half a file). */
async function compile(asc, build) {
  const out = `${distDir}${build.file}`;
  const tmp = `${out}.${process.pid}.tmp`;
  try {
    await run(process.execPath, [asc, entry, ...common, ...build.flags, '-o', tmp], { maxBuffer: 16 << 20 });
    await rename(tmp, out);
  } catch (error) {
    await rm(tmp, { force: true });
    const detail = error && typeof error === 'object' && 'stderr' in error ? String(error.stderr) : String(error);
    throw new Error(`asc failed for ${build.file}:\n${detail}`);
  }
  return out;
}

/** Builds what is missing or stale; returns the paths written. */
export async function buildKernels({ force = false, only } = {}) {
  const asc = fileURLToPath(new URL('../bin/asc.js', import.meta.resolve('assemblyscript/asc')));
  await mkdir(distDir, { recursive: true });
  const sourceMs = await newestSourceMs();
  const wanted = BUILDS.filter((b) => only === undefined || only.includes(b.name));
  const stale = [];
  for (const b of wanted) if (force || (await mtimeMs(`${distDir}${b.file}`)) < sourceMs) stale.push(b);
  return Promise.all(stale.map((b) => compile(asc, b)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',') : undefined;
  const t0 = performance.now();
  try {
    const written = await buildKernels({ force: args.includes('--force'), only });
    const ms = Math.round(performance.now() - t0);
    console.log(
      written.length === 0
        ? 'wasm kernels up to date'
        : `built ${written.map((p) => p.slice(distDir.length)).join(', ')} in ${ms} ms`,
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
