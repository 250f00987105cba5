// Builds the AssemblyScript kernels in wasm-kernels/ into packages/wasm/dist/, one .wasm per feature set:
//   tandem-simd.wasm              SIMD128                         (every current engine)
//   tandem-relaxed.wasm           SIMD128 + relaxed-simd FMA       (chosen when WebAssembly.validate accepts it)
//   tandem-simd-threads.wasm      + threads, shared imported memory (worker pool)
//   tandem-relaxed-threads.wasm   relaxed + threads
// Offline and local (asc from node_modules). Skips work when every output is newer than every source;
// `--force` rebuilds. Usage: node packages/wasm/scripts/build.mjs [--force] [--only simd,relaxed]; --help lists the
// flags, an unknown flag is an error (exit 2).
import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, stat, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

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

const USAGE = `Usage: node packages/wasm/scripts/build.mjs [options]   (npm run build -w @tandem/wasm)

Builds the AssemblyScript kernels (wasm-kernels/) into packages/wasm/dist/, skipping what is up to date.

  --force                   rebuild even when every output is newer than every source
  --only NAMES              comma-separated builds: ${BUILDS.map((b) => b.name).join(', ')} (default all)
  -h, --help                this text`;

/** The command line's options; prints the usage and exits on --help (0) or a wrong argument (2). */
function commandLine(argv) {
  const refuse = (message) => {
    console.error(`${message}\n\n${USAGE}`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { force: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    refuse(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only = values.only?.split(',');
  const unknown = only?.filter((n) => !BUILDS.some((b) => b.name === n)) ?? [];
  if (unknown.length > 0) refuse(`--only ${values.only}: unknown build ${unknown.join(', ')}`);
  return { force: values.force === true, only };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = commandLine(process.argv.slice(2));
  const t0 = performance.now();
  try {
    const written = await buildKernels(options);
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
