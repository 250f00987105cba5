// The built demo (apps/demo/dist) as static files: the brotli or gzip copy the demo's build wrote next to each
// file when the client accepts one (@fastify/static's preCompressed), hashed assets (assets/*-<hash>.*) cached for
// a year as immutable, everything else revalidated on each load (ETag, 304), and the cross-origin isolation
// headers that the demo's WASM threads need (SharedArrayBuffer).
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

/** demoStatic's options. */
export interface DemoStaticOptions {
  /** The built demo's folder. */
  readonly root: string;
}

/** Names Vite gives hashed assets: assets/<name>-<8+ base64url chars>.<ext>, and their .br / .gz copies. */
const HASHED = /[/\\]assets[/\\][^/\\]+-[A-Za-z0-9_-]{8,}(\.[a-z0-9]+)+$/;

/** Cache-Control of a served file: immutable for a hashed asset, revalidated for the rest (index.html, data/). */
export function cacheControlOf(path: string): string {
  return HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/** Serves the demo at /. */
export const demoStatic: FastifyPluginAsync<DemoStaticOptions> = async (app, options) => {
  await app.register(fastifyStatic, {
    root: options.root,
    index: ['index.html'], // an array: with preCompressed, a string index answers 404 at / (@fastify/static 10.1)
    preCompressed: true,
    cacheControl: false, // set per file below
    setHeaders: (reply, path) => {
      reply.header('Cache-Control', cacheControlOf(path));
      reply.header('Cross-Origin-Opener-Policy', 'same-origin');
      reply.header('Cross-Origin-Embedder-Policy', 'require-corp');
    },
  });
};
