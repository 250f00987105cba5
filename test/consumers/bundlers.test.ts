// The smallest page that uses Tandem (fixtures/page), bundled from the installed tarballs by the bundlers people use:
// webpack 5 and Vite emit the .wasm kernels from the `new URL('./x.wasm', import.meta.url)` pattern with no
// configuration, esbuild leaves them to the user (the README's esbuild recipe: copy them and pass wasm.distUrl), and
// no bundle pulls in Node-only code (Dawn, the HIP addon, node: built-ins). The page itself runs in Chromium in
// test/e2e/consumer-page.spec.ts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, type ConsumerProject } from './support/project.ts';

const page = (file: string): string => readFileSync(new URL(`./fixtures/page/${file}`, import.meta.url), 'utf8');

const WEBPACK_BUILD = `// webpack 5 through its Node API, production mode, browser target: nothing Tandem-specific.
import webpack from 'webpack';
const compiler = webpack({ mode: 'production', target: 'web', entry: './main.js', devtool: false, output: { path: new URL('./dist-webpack', import.meta.url).pathname, clean: true } });
compiler.run((error, stats) => {
  if (error) throw error;
  console.log(stats.toString({ all: false, errors: true, warnings: true }));
  compiler.close(() => process.exit(stats.hasErrors() ? 1 : 0));
});
`;

/** Every file under `dir` with its text (binary files as byte counts). */
function filesOf(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(
      path.relative(dir, file),
      file.endsWith('.js') ? readFileSync(file, 'utf8') : `${readFileSync(file).byteLength} bytes`,
    );
  }
  return files;
}

/** Node-only things a browser bundle must not contain: Dawn, the HIP addon, modules of Node's own. */
function expectNoNodeOnlyCode(files: Map<string, string>): void {
  const code = [...files]
    .filter(([name]) => name.endsWith('.js'))
    .map(([, text]) => text)
    .join('\n');
  for (const nodeOnly of [
    'dawn.node',
    '@tandem/rocm',
    'tandem_rocm',
    'node:fs',
    'node:os',
    'node:child_process',
    'node:module',
  ])
    expect(code).not.toContain(nodeOnly);
}

describe('bundlers, from the installed tarballs', () => {
  let project: ConsumerProject | undefined;

  beforeAll(async () => {
    project = await consumerProject('bundlers', {
      tarballs: ['tandem'],
      fromRegistry: ['vite', 'webpack', 'esbuild'],
      files: { 'index.html': page('index.html'), 'main.js': page('main.js'), 'webpack.build.mjs': WEBPACK_BUILD },
    });
  }, 600_000);
  afterAll(() => project?.remove());

  it('vite build emits the four .wasm kernel builds and no Node-only code', async () => {
    const built = await project?.run('npx', ['vite', 'build', '--logLevel', 'warn']);
    expect(built?.stderr).toBe('');
    expect(built?.code).toBe(0);
    const files = filesOf(path.join(project?.dir ?? '', 'dist'));
    expect(
      [...files.keys()]
        .filter((f) => f.endsWith('.wasm'))
        .map((f) => f.replace(/-[\w-]{8}\.wasm$/, '.wasm'))
        .sort(),
    ).toEqual([
      'assets/tandem-relaxed-threads.wasm',
      'assets/tandem-relaxed.wasm',
      'assets/tandem-simd-threads.wasm',
      'assets/tandem-simd.wasm',
    ]);
    expect([...files.keys()].some((f) => f.includes('__vite-browser-external'))).toBe(false);
    expectNoNodeOnlyCode(files);
  }, 300_000);

  it('webpack 5 emits the four .wasm kernel builds and no Node-only code', async () => {
    const built = await project?.run('node', ['webpack.build.mjs']);
    expect(built?.stdout.trim() + (built?.stderr ?? '')).toBe('');
    expect(built?.code).toBe(0);
    const files = filesOf(path.join(project?.dir ?? '', 'dist-webpack'));
    expect([...files.keys()].filter((f) => f.endsWith('.wasm'))).toHaveLength(4);
    expectNoNodeOnlyCode(files);
  }, 300_000);

  it("esbuild bundles the page for the browser; its .wasm files are the user's to copy (the README says how)", async () => {
    const built = await project?.run('npx', [
      'esbuild',
      'main.js',
      '--bundle',
      '--format=esm',
      '--platform=browser',
      '--outdir=dist-esbuild',
      '--log-level=warning',
    ]);
    expect(built?.stderr).toBe('');
    expect(built?.code).toBe(0);
    const files = filesOf(path.join(project?.dir ?? '', 'dist-esbuild'));
    expect([...files.keys()]).toEqual(['main.js']);
    expectNoNodeOnlyCode(files);
    // The literal URLs stay in the bundle, relative to it: what wasm.distUrl replaces.
    expect(files.get('main.js')).toContain('../dist/tandem-simd.wasm');
  }, 300_000);
});
