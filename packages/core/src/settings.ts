// Every TANDEM_* environment setting, in one registry with what each does and who reads it. A setting read anywhere
// in the tree must be listed here, and README.md's settings table must list each with this doc
// (test/structure/settings.test.ts). Isomorphic: readers pass their environment (process.env in Node).

/** One TANDEM_* setting. */
export interface Setting {
  /** What it does and its values, one line (README.md shows it). */
  readonly doc: string;
  /** Who reads it: a package, an app, a build script or a test suite. */
  readonly readBy: string;
}

/** Every setting, by name. */
export const TANDEM_SETTINGS = {
  TANDEM_FORCE_CPU: {
    doc: '`1`, `true` or `yes`: createEngine() keeps every op on CPU backends',
    readBy: 'tandem (Node)',
  },
  TANDEM_WEBGPU: {
    doc: "`swiftshader`: createEngine() runs WebGPU on SwiftShader (Debian's chromium) on a machine without a GPU",
    readBy: 'tandem (Node)',
  },
  TANDEM_PROFILE: {
    doc: "`off` (or `0`, `false`, `no`): createEngine()'s default profile store is off (no profile loaded or saved)",
    readBy: 'tandem (Node)',
  },
  TANDEM_PROFILE_DIR: {
    doc: "where createEngine() keeps engine profiles (default: the user's cache folder + /tandem)",
    readBy: 'tandem (Node)',
  },
  TANDEM_ROCM_ADDON: { doc: 'a tandem_rocm.node to load instead of the built variants', readBy: '@tandem/rocm' },
  TANDEM_GPU_PROCESS_ENTRY: {
    doc: "the WebGPU child process's entry file (default: the bundled child, then its source)",
    readBy: '@tandem/webgpu',
  },
  TANDEM_HIP_ARCHS: {
    doc: 'AMD targets of the HIP build, comma-separated (default gfx90a,gfx1030)',
    readBy: 'packages/rocm/scripts/build.mjs',
  },
  TANDEM_CUDA_ARCHS: {
    doc: 'NVIDIA compute capabilities of the HIP build, comma-separated (default 80,90)',
    readBy: 'packages/rocm/scripts/build.mjs',
  },
  TANDEM_EMU_CFLAGS: {
    doc: 'extra g++ flags of the emulated HIP build, e.g. -fsanitize=address',
    readBy: 'packages/rocm/scripts/build.mjs',
  },
  TANDEM_EMU_WARP: { doc: 'warp size of the emulated HIP device: 32 (default) or 64', readBy: 'native-rocm/emulation' },
  TANDEM_ALLOWED_HOSTS: {
    doc: 'Host names the server answers on loopback, comma-separated (`*`: any)',
    readBy: 'apps/server',
  },
  TANDEM_SERVER_DEBUG: {
    doc: '`1`: the server serves /debug (driver strings, failure messages, the Node version)',
    readBy: 'apps/server',
  },
  TANDEM_TEST_GPU: {
    doc: "`native`: tests use the machine's GPU instead of SwiftShader and the HIP emulation",
    readBy: 'tests',
  },
  TANDEM_TEST_UNAVAILABLE: {
    doc: 'backends the tests treat as unable to start, comma-separated (reference, wasm, webgpu, rocm): under CI=true each is a failure',
    readBy: 'tests',
  },
  TANDEM_PROPERTY_RUNS: { doc: 'runs per property test (default 25; test:stress 500)', readBy: 'tests' },
  TANDEM_PROPERTY_SEED: { doc: "the property tests' seed (each run prints its own, to replay it)", readBy: 'tests' },
  TANDEM_STRESS_OPS: { doc: "ops of test:stress's mixed-fault run (default 10000)", readBy: 'test/stress' },
  TANDEM_SOAK_MINUTES: { doc: "length of test:stress's soak, minutes (default 10)", readBy: 'test/stress' },
  TANDEM_LOAD_PHASES: {
    doc: 'phases of the server load test: capacity,sustained,heavy,attack or a subset',
    readBy: 'test/stress',
  },
  TANDEM_LOAD_CAPACITY_SECONDS: {
    doc: "the load test's unthrottled phase, seconds (default 10)",
    readBy: 'test/stress',
  },
  TANDEM_LOAD_SECONDS: { doc: "the load test's sustained phase, seconds (default 60)", readBy: 'test/stress' },
  TANDEM_LOAD_RATE: { doc: "the load test's sustained requests per second (default 400)", readBy: 'test/stress' },
  TANDEM_LOAD_HEAVY_SECONDS: { doc: "the load test's heaviest phase, seconds (default 20)", readBy: 'test/stress' },
  TANDEM_LOAD_HEALTHZ_P99_MS: {
    doc: "the load test's bound on /healthz p99 in the heaviest phase, ms (default 50)",
    readBy: 'test/stress',
  },
  TANDEM_KEEP_CONSUMERS: {
    doc: '`1`: the consumer tests keep the projects they install into',
    readBy: 'test/consumers',
  },
  TANDEM_CHROMIUM: { doc: 'the Chromium the end-to-end tests drive (default /usr/bin/chromium)', readBy: 'test/e2e' },
  TANDEM_BENCH_OUT: { doc: 'where benchmark results go (default bench-results/)', readBy: 'apps/bench' },
  TANDEM_BENCH_MEMORY_WORDS: {
    doc: "words of the memory suite's vectors (default 0: all 341,479)",
    readBy: 'apps/bench',
  },
  TANDEM_BENCH_WEBGPU_MATMUL_SIZES: {
    doc: "square matmul sizes of the webgpu suite's sweep, comma-separated",
    readBy: 'apps/bench',
  },
  TANDEM_BENCH_WEBGPU_COSINE_SIZES: {
    doc: "resident 768-d target counts of the webgpu suite's cosine sweep",
    readBy: 'apps/bench',
  },
  TANDEM_BENCH_WEBGPU_LATENCY_SIZES: {
    doc: "matmul sizes of the webgpu suite's webgpu-vs-wasm latency sweep",
    readBy: 'apps/bench',
  },
  TANDEM_BENCH_WEBGPU_ADD_SIZES: {
    doc: "element counts of the webgpu suite's add latency sweep",
    readBy: 'apps/bench',
  },
  TANDEM_BENCH_WEBGPU_REPS: { doc: 'most timed repetitions per row of the webgpu suite', readBy: 'apps/bench' },
  TANDEM_DEMO_WORDS: { doc: 'words the demo prepares, most frequent first (default 50000)', readBy: 'apps/demo' },
  TANDEM_DEMO_DIST: {
    doc: '`1`: the demo serves its built dist/ with vite preview; `server`: through the Tandem server',
    readBy: 'apps/demo',
  },
  TANDEM_E2E_FIGURES: {
    doc: '`1`: Playwright also runs the specs that only measure (test/e2e/warm-start.spec.ts)',
    readBy: 'tests',
  },
} as const satisfies Readonly<Record<`TANDEM_${string}`, Setting>>;

/** The name of a TANDEM_* setting. */
export type SettingName = keyof typeof TANDEM_SETTINGS;

/** The environment a setting is read from: process.env in Node. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** The value of setting `name` in `env`, or undefined when it is unset. */
export function readSetting(env: SettingsEnv, name: SettingName): string | undefined {
  return env[name];
}
