// Serves the demo for the browser tests on http://127.0.0.1:<free port>, cross-origin isolated: Vite's dev
// server on the sources (default), `vite preview` of the built dist/ (TANDEM_DEMO_DIST=1), or the built dist/ as
// the Tandem server serves it (TANDEM_DEMO_DIST=server: precompressed files, immutable hashed assets; both after
// `npm run build -w @tandem/demo`). Prepares a small data set (5,000 words) first when there is none.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { createServer, preview } from 'vite';
import { demoStatic } from '../../server/src/demo-static.ts';

const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = path.join(DEMO_DIR, 'vite.config.ts');

/** A running demo server. */
export interface DemoServer {
  /** Base URL, ending in '/'. */
  readonly url: string;
  /** What is served: 'sources' (dev server), 'dist' (preview of the build) or 'server' (the build as the server serves it). */
  readonly serves: 'sources' | 'dist' | 'server';
  /** Stops it. */
  close(): Promise<void>;
}

/** Runs scripts/prepare-data.ts with TANDEM_DEMO_WORDS=5000 unless public/data already holds prepared data. */
export function ensureDemoData(): void {
  if (existsSync(path.join(DEMO_DIR, 'public', 'data', 'manifest.json'))) return;
  const result = spawnSync(
    process.execPath,
    ['--conditions=@tandem/source', '--import', 'tsx', path.join(DEMO_DIR, 'scripts', 'prepare-data.ts')],
    {
      cwd: DEMO_DIR,
      env: { ...process.env, TANDEM_DEMO_WORDS: process.env['TANDEM_DEMO_WORDS'] ?? '5000' },
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) throw new Error(`prepare-data failed with status ${result.status}`);
}

/** Starts the server (see the top of this file). */
export async function startDemoServer(): Promise<DemoServer> {
  const mode = process.env['TANDEM_DEMO_DIST'];
  if ((mode === '1' || mode === 'server') && !existsSync(path.join(DEMO_DIR, 'dist', 'index.html')))
    throw new Error(`TANDEM_DEMO_DIST=${mode} but apps/demo/dist is not built: npm run build -w @tandem/demo`);
  if (mode === 'server') {
    const app = Fastify();
    await app.register(demoStatic, { root: path.join(DEMO_DIR, 'dist') });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { url: `${url}/`, serves: 'server', close: () => app.close() };
  }
  if (mode === '1') {
    const server = await preview({ configFile: CONFIG, logLevel: 'warn', preview: { port: 0, strictPort: false } });
    const url = server.resolvedUrls?.local[0];
    if (url === undefined) throw new Error('vite preview did not report a local URL');
    return { url, serves: 'dist', close: () => server.close() };
  }
  ensureDemoData();
  const server = await createServer({ configFile: CONFIG, logLevel: 'warn', server: { port: 0, watch: null } });
  await server.listen();
  const url = server.resolvedUrls?.local[0];
  if (url === undefined) {
    await server.close();
    throw new Error('vite did not report a local URL');
  }
  return { url, serves: 'sources', close: () => server.close() };
}
