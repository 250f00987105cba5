#!/usr/bin/env node
// Builds native-rocm/ (HIP kernels + node-addon-api addon) into packages/rocm/build/<variant>/tandem_rocm.node.
//
//   node packages/rocm/scripts/build.mjs [--variant amd|nvidia|emulated|auto] [--optional] [--jobs N] [--clean]
//   (installed: npx tandem-rocm-build, the package's bin; --help lists the flags, an unknown one is an error, exit 2)
//
//   amd     hipcc with HIP_PLATFORM=amd, --offload-arch per TANDEM_HIP_ARCHS (default gfx90a,gfx1030)
//   nvidia  nvcc -x cu with native-rocm/include/tandem_hip.h mapping hip* onto CUDA, archs per
//           TANDEM_CUDA_ARCHS (default 80,90; PTX of the last for newer GPUs)
//   auto    (default) every variant whose compiler is found; none found: a one-line note, exit 0
//   emulated  g++ only: the kernels and addon over a CPU emulation of HIP (native-rocm/emulation/), to test
//             kernel logic (npm test's conformance and the GPU gate, test/conformance/gpu) without a GPU; never
//             built by auto, never loaded unless named by TANDEM_ROCM_ADDON
//   --optional  any failure becomes a one-line note and exit 0 (the package's install script uses it,
//               so `npm install` never fails for want of a GPU toolchain)
// Headers: $NAPI_INCLUDE (the GPU kit's), else node-addon-api's folder and Node's own headers
// (/usr/include/node, or <node prefix>/include/node). Objects are rebuilt only when a source or header changed.
// Uses nothing but Node's standard library, so it also runs where node_modules is absent.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(here, '..');
// The repository's native-rocm/, or the copy an installed package ships (prepack puts it in the package).
const nativeDir =
  [join(packageDir, 'native-rocm'), resolve(packageDir, '../../native-rocm')].find((d) =>
    existsSync(join(d, 'kernels')),
  ) ?? resolve(packageDir, '../../native-rocm');
const VARIANTS = ['amd', 'nvidia'];
const EXPLICIT_VARIANTS = [...VARIANTS, 'emulated'];

const USAGE = `Usage: node packages/rocm/scripts/build.mjs [options]   (installed: npx tandem-rocm-build [options])

Builds native-rocm/ (the HIP kernels and the Node addon) into packages/rocm/build/<variant>/tandem_rocm.node.

  --variant VARIANT         amd (hipcc), nvidia (nvcc), emulated (g++ only, a CPU emulation of HIP for tests) or
                            auto: every variant whose compiler is found (default auto; never emulated)
  --optional                any failure becomes a one-line note and exit 0 (the package's install script)
  --jobs N                  compilers run at once (default: the CPU count)
  --clean                   delete build/<variant>/ first and rebuild everything (default: only what changed)
  -h, --help                this text`;

/** The command line's options, or { help: true }; throws with a message on a wrong argument. */
function commandLine(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      variant: { type: 'string', default: 'auto' },
      optional: { type: 'boolean', default: false },
      jobs: { type: 'string' },
      clean: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { help: true };
  const opts = {
    variant: values.variant,
    optional: values.optional,
    jobs: values.jobs === undefined ? Math.max(1, cpus().length) : Number(values.jobs),
    clean: values.clean,
  };
  if (opts.variant !== 'auto' && !EXPLICIT_VARIANTS.includes(opts.variant))
    throw new Error(`--variant must be amd, nvidia, emulated or auto (got ${opts.variant})`);
  if (!(opts.jobs >= 1)) throw new Error('--jobs must be >= 1');
  return opts;
}

/** Full path of an executable on PATH (or the given absolute path), or undefined. */
function which(name) {
  if (name.includes('/')) return existsSync(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, name);
    if (dir !== '' && existsSync(p)) return p;
  }
  return undefined;
}

function findCompiler(variant) {
  if (variant === 'emulated') return which(process.env.CXX ?? 'g++');
  if (variant === 'amd') {
    const hipcc = which(process.env.HIPCC ?? 'hipcc');
    return (hipcc !== undefined && existsSync('/usr/include/hip/hip_runtime.h')) ||
      (hipcc !== undefined && process.env.HIPCC !== undefined)
      ? hipcc
      : undefined;
  }
  return which(process.env.NVCC ?? 'nvcc') ?? which('/usr/local/cuda/bin/nvcc');
}

function includeDirs() {
  const dirs = [join(nativeDir, 'include')];
  if (process.env.NAPI_INCLUDE) return [...dirs, process.env.NAPI_INCLUDE];
  try {
    const require = createRequire(join(packageDir, 'package.json'));
    dirs.push(dirname(require.resolve('node-addon-api/napi.h')));
  } catch {
    throw new Error('node-addon-api is not installed (npm install) and NAPI_INCLUDE is not set');
  }
  const nodeHeaders = [
    process.env.NODE_INCLUDE,
    join(dirname(process.execPath), '../include/node'),
    '/usr/include/node',
  ].find((d) => d !== undefined && existsSync(join(d, 'node_api.h')));
  if (nodeHeaders === undefined) throw new Error("Node's headers (node_api.h) were not found; set NODE_INCLUDE");
  return [...dirs, nodeHeaders];
}

const COMMON_DEFINES = ['-DNAPI_VERSION=8', '-DNAPI_CPP_EXCEPTIONS', '-DNODE_ADDON_API_DISABLE_DEPRECATED'];

/**
 * For the emulated build: a kernel source (or a kernel header that launches) with `k<<<cfg>>>(args)` launches and
 * `extern __shared__ T x[]` declarations rewritten into plain C++ (see native-rocm/emulation/tandem_hip_emulated.h).
 * A rewritten header lands beside the rewritten sources, which find it first.
 */
function emulatedSource(src, genDir) {
  const text = readFileSync(src, 'utf8')
    .replace(
      /extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?([\w:]+)\s+(\w+)\[\];/g,
      '$1* $2 = static_cast<$1*>(tandem_emu::dynamic_shared());',
    )
    .replace(/([A-Za-z_][\w:]*(?:<[^;<>()]*>)?)\s*<<<([\s\S]*?)>>>\(/g, 'tandem_emu::Config($2).run($1, ');
  const out = join(
    genDir,
    src
      .split(/[/\\]/)
      .pop()
      .replace(/\.hip$/, '.cc'),
  );
  writeFileSync(out, `#line 1 "${src}"\n${text}`);
  return out;
}

/** Rewrites the kernel headers that launch kernels (elementwise.h) for the emulated build, into genDir. */
function emulatedHeaders(genDir) {
  const dir = join(nativeDir, 'kernels');
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.h'))) {
    if (readFileSync(join(dir, name), 'utf8').includes('<<<')) emulatedSource(join(dir, name), genDir);
  }
}

/** How one variant compiles a source and links the addon. */
function toolchain(variant, compiler, includes, outDir) {
  const inc = includes.map((d) => `-I${d}`);
  if (variant === 'emulated') {
    // TANDEM_EMU_CFLAGS, e.g. -fsanitize=address (then run node with LD_PRELOAD=$(g++ -print-file-name=libasan.so)).
    const extraFlags = (process.env.TANDEM_EMU_CFLAGS ?? '').split(' ').filter(Boolean);
    const genDir = join(outDir, 'gen');
    mkdirSync(genDir, { recursive: true });
    emulatedHeaders(genDir);
    const kernelInc = [`-I${join(nativeDir, 'kernels')}`];
    return {
      env: process.env,
      archs: ['cpu'],
      compile: (src, obj) => {
        const input = src.endsWith('.hip') ? emulatedSource(src, genDir) : src;
        return [
          compiler,
          [
            '-x',
            'c++',
            '-std=c++20',
            '-O2',
            '-g',
            '-fPIC',
            '-pthread',
            '-fvisibility=hidden',
            '-Wno-unknown-pragmas',
            '-DTANDEM_HIP_EMULATION',
            ...extraFlags,
            ...COMMON_DEFINES,
            ...kernelInc,
            ...inc,
            '-c',
            input,
            '-o',
            obj,
          ],
        ];
      },
      link: (objs, out) => [compiler, ['-shared', '-pthread', '-Wl,-Bsymbolic', ...extraFlags, '-o', out, ...objs]],
    };
  }
  if (variant === 'amd') {
    const archs = (process.env.TANDEM_HIP_ARCHS ?? 'gfx90a,gfx1030').split(',').filter(Boolean);
    const offload = archs.map((a) => `--offload-arch=${a}`);
    return {
      env: { ...process.env, HIP_PLATFORM: 'amd' },
      archs,
      compile: (src, obj) => {
        const hostOnly = src.endsWith('.cc') ? ['--cuda-host-only'] : offload;
        return [
          compiler,
          [
            '-x',
            'hip',
            '-std=c++17',
            '-O3',
            '-fPIC',
            '-fvisibility=hidden',
            '-Wno-unused-result',
            ...hostOnly,
            ...COMMON_DEFINES,
            ...inc,
            '-c',
            src,
            '-o',
            obj,
          ],
        ];
      },
      link: (objs, out) => [compiler, ['-shared', '-fPIC', ...offload, '-Wl,-Bsymbolic', '-o', out, ...objs]],
    };
  }
  const archs = (process.env.TANDEM_CUDA_ARCHS ?? '80,90').split(',').filter(Boolean);
  const last = archs[archs.length - 1];
  const gencode = [
    ...archs.flatMap((a) => ['-gencode', `arch=compute_${a},code=sm_${a}`]),
    '-gencode',
    `arch=compute_${last},code=compute_${last}`,
  ];
  return {
    env: process.env,
    archs,
    compile: (src, obj) => {
      const device = src.endsWith('.cc') ? [] : gencode;
      return [
        compiler,
        [
          '-x',
          'cu',
          '-std=c++17',
          '-O3',
          '-Xcompiler',
          '-fPIC,-fvisibility=hidden',
          ...device,
          ...COMMON_DEFINES,
          ...inc,
          '-c',
          src,
          '-o',
          obj,
        ],
      ];
    },
    link: (objs, out) => [compiler, ['-shared', '-Xcompiler', '-fPIC', '-Xlinker', '-Bsymbolic', '-o', out, ...objs]],
  };
}

function sources() {
  const kernels = readdirSync(join(nativeDir, 'kernels'))
    .filter((f) => f.endsWith('.hip'))
    .map((f) => join(nativeDir, 'kernels', f));
  const host = readdirSync(join(nativeDir, 'src'))
    .filter((f) => f.endsWith('.cc'))
    .map((f) => join(nativeDir, 'src', f));
  return [...kernels, ...host].sort();
}

/** Newest modification time among headers and this script: any change there rebuilds every object. */
function headersStamp(variant) {
  const dirs = [join(nativeDir, 'include'), join(nativeDir, 'kernels'), join(nativeDir, 'src')];
  if (variant === 'emulated') dirs.push(join(nativeDir, 'emulation'));
  const headers = dirs.flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.h'))
      .map((f) => join(d, f)),
  );
  return Math.max(statSync(fileURLToPath(import.meta.url)).mtimeMs, ...headers.map((h) => statSync(h).mtimeMs));
}

function run(cmd, args, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => resolvePromise({ code: -1, output: String(e) }));
    child.on('close', (code) => resolvePromise({ code: code ?? -1, output }));
  });
}

/** Drops the noise ROCm 5.2's hipcc prints when it probes for a GPU that is not there. */
function cleanOutput(text) {
  return text
    .split('\n')
    .filter(
      (l) =>
        !/rocm_agent_enumerator|Traceback|readFromKFD|topology_dir|FileNotFoundError|^\s+\^+$|^\s+File "|^\s+(target_list|for node|main\(\))/.test(
          l,
        ),
    )
    .join('\n')
    .trim();
}

async function buildVariant(variant, compiler, opts) {
  const started = Date.now();
  const outDir = join(packageDir, 'build', variant);
  const objDir = join(outDir, 'obj');
  if (opts.clean) rmSync(outDir, { recursive: true, force: true });
  mkdirSync(objDir, { recursive: true });
  // The compilers' scratch files go to build/<variant>/tmp, which goes when the build ends: hipcc left an empty
  // /tmp/<kernel>-XXXXXX per source on every build.
  const scratch = join(outDir, 'tmp');
  mkdirSync(scratch, { recursive: true });
  const tc = toolchain(variant, compiler, includeDirs(), outDir);
  const env = { ...tc.env, TMPDIR: scratch };
  try {
    const stamp = headersStamp(variant);
    // Another compiler command (TANDEM_EMU_CFLAGS, the archs, the compiler itself) rebuilds every object: an ASan or
    // ucontext build must not be taken for the plain one.
    const commandFile = join(objDir, 'command.txt');
    const command = tc.compile('SOURCE', 'OBJECT').flat().join(' ');
    const commandChanged = !existsSync(commandFile) || readFileSync(commandFile, 'utf8') !== command;
    const srcs = sources();
    const objs = srcs.map((s) => join(objDir, `${relative(nativeDir, s).replace(/[/\\]/g, '_')}.o`));
    const stale = srcs
      .map((_source, i) => i)
      .filter((i) => {
        const o = objs[i];
        return commandChanged || !existsSync(o) || statSync(o).mtimeMs < Math.max(stamp, statSync(srcs[i]).mtimeMs);
      });
    let next = 0;
    const failures = [];
    const worker = async () => {
      while (next < stale.length) {
        const i = stale[next++];
        const [cmd, args] = tc.compile(srcs[i], objs[i]);
        const r = await run(cmd, args, env);
        const text = cleanOutput(r.output);
        if (r.code !== 0) failures.push(`${relative(nativeDir, srcs[i])}:\n${text}`);
        else if (text !== '') process.stderr.write(`${relative(nativeDir, srcs[i])}: ${text}\n`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.jobs, Math.max(1, stale.length)) }, worker));
    if (failures.length > 0) throw new Error(`${variant} build failed:\n${failures.join('\n')}`);
    writeFileSync(commandFile, command);
    const out = join(outDir, 'tandem_rocm.node');
    const [cmd, args] = tc.link(objs, out);
    const linked = await run(cmd, args, env);
    if (linked.code !== 0) throw new Error(`${variant} link failed:\n${cleanOutput(linked.output)}`);
    writeFileSync(
      join(outDir, 'build-info.json'),
      `${JSON.stringify({ variant, compiler, archs: tc.archs, builtAt: new Date().toISOString() }, null, 2)}\n`,
    );
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `@tandem/rocm: built ${relative(process.cwd(), out) || out} (${variant}, ${tc.archs.join(' ')}, ${stale.length}/${srcs.length} sources compiled, ${secs} s)`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main() {
  let opts;
  try {
    opts = commandLine(process.argv.slice(2));
  } catch (e) {
    console.error(`@tandem/rocm build: ${e.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (opts.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const wanted = opts.variant === 'auto' ? VARIANTS : [opts.variant];
  const found = wanted.map((v) => ({ variant: v, compiler: findCompiler(v) })).filter((t) => t.compiler !== undefined);
  if (found.length === 0) {
    const msg = `@tandem/rocm: no ${opts.variant === 'auto' ? 'GPU toolchain (hipcc or nvcc)' : opts.variant === 'amd' ? 'hipcc' : 'nvcc'} found; the ROCm backend is not built (it will report itself unavailable)`;
    console.log(msg);
    process.exit(opts.variant === 'auto' || opts.optional ? 0 : 1);
  }
  let failed = false;
  for (const { variant, compiler } of found) {
    try {
      await buildVariant(variant, compiler, opts);
    } catch (e) {
      failed = true;
      if (opts.optional)
        console.log(
          `@tandem/rocm: the ${variant} build failed; the ROCm backend will report itself unavailable (run node packages/rocm/scripts/build.mjs --variant ${variant} for details)`,
        );
      else console.error(e.message);
    }
  }
  process.exit(failed && !opts.optional ? 1 : 0);
}

main();
