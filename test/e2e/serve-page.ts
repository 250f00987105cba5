// Serves the conformance page with Vite's dev server on http://127.0.0.1:<free port> (a secure context, which
// WebGPU needs), cross-origin isolated (WASM threads). Sources are transformed on request: no build step.
import { fileURLToPath } from 'node:url';
import { createServer, defaultClientConditions } from 'vite';

/** A running page server. */
export interface PageServer {
  /** URL of the page, e.g. http://127.0.0.1:41234/. */
  readonly url: string;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Starts Vite on a free port of 127.0.0.1, rooted at test/e2e/page. */
export async function startPageServer(): Promise<PageServer> {
  const server = await createServer({
    configFile: false,
    root: fileURLToPath(new URL('./page', import.meta.url)),
    logLevel: 'warn',
    clearScreen: false,
    // Workspace packages from their sources (their '@tandem/source' export condition).
    resolve: { conditions: ['@tandem/source', ...defaultClientConditions] },
    // Cross-origin isolation: SharedArrayBuffer, so the WASM backend runs its threads (Web Workers) here too.
    server: {
      host: '127.0.0.1',
      port: 0,
      watch: null,
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  await server.listen();
  const url = server.resolvedUrls?.local[0];
  if (url === undefined) {
    await server.close();
    throw new Error('vite did not report a local URL');
  }
  return { url, close: () => server.close() };
}
