// The demo's Vite config: two pages (the demo and the bench results), served cross-origin isolated (COOP/COEP)
// by the dev and preview servers so SharedArrayBuffer, and with it WASM threads, is available.
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The headers that make the page cross-origin isolated. */
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } as const;

export default defineConfig({
  root,
  base: './',
  publicDir: 'public',
  clearScreen: false,
  // Workspace packages from their sources (their '@tandem/source' export condition), not their built dist/.
  resolve: { conditions: ['@tandem/source', ...defaultClientConditions] },
  server: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  preview: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  optimizeDeps: { noDiscovery: true, include: [] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: { main: `${root}index.html`, results: `${root}results.html` } },
  },
});
