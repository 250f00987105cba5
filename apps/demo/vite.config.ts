// The demo's Vite config: two pages (the demo and the bench results) and the engine worker (an ES module worker),
// served cross-origin isolated (COOP/COEP) by the dev and preview servers so SharedArrayBuffer, and with it WASM
// threads, is available. The build ends by writing brotli and gzip copies of the files (scripts/precompress.ts).
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { precompress } from './scripts/precompress.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The headers that make the page cross-origin isolated. */
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
} as const;

/** Writes .br and .gz next to the built files once the build is written. */
function precompressed(): Plugin {
  return {
    name: 'tandem-precompress',
    apply: 'build',
    async closeBundle() {
      const report = await precompress(`${root}dist`);
      console.log(
        `[demo] precompressed ${report.files} files: ${(report.bytes / 1e6).toFixed(1)} MB -> ${(report.brotliBytes / 1e6).toFixed(1)} MB brotli`,
      );
    },
  };
}

export default defineConfig({
  root,
  base: './',
  publicDir: 'public',
  clearScreen: false,
  // Workspace packages from their sources (their '@tandem/source' export condition), not their built dist/.
  resolve: { conditions: ['@tandem/source', ...defaultClientConditions] },
  server: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  preview: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  // The charts' and the graph's libraries are loaded lazily: pre-bundled at start, so that loading them later does not
  // make the dev server re-optimise and reload the page.
  optimizeDeps: { noDiscovery: true, include: ['uplot', 'd3-force'] },
  worker: { format: 'es' },
  plugins: [precompressed()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: { main: `${root}index.html`, results: `${root}results.html` } },
  },
});
