// The demo's static files: a precompressed copy when the client takes it, immutable hashed assets, the rest
// revalidated, cross-origin isolation on every file, and / served (a string index 404s with preCompressed).
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheControlOf, demoStatic } from './demo-static.ts';

const root = mkdtempSync(path.join(tmpdir(), 'tandem-demo-static-'));
const app = Fastify();
const script = 'export const answer = 42;\n'.repeat(100);

beforeAll(async () => {
  mkdirSync(path.join(root, 'assets'));
  mkdirSync(path.join(root, 'data'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>demo</title>');
  writeFileSync(path.join(root, 'assets', 'main-DmUJ6tXJ.js'), script);
  writeFileSync(path.join(root, 'assets', 'main-DmUJ6tXJ.js.br'), brotliCompressSync(script));
  writeFileSync(path.join(root, 'data', 'words.json'), '["the","of"]');
  await app.register(demoStatic, { root });
});

afterAll(async () => {
  await app.close();
  rmSync(root, { recursive: true, force: true });
});

describe('demoStatic', () => {
  it('serves the brotli copy to a client that accepts it, and the file itself to one that does not', async () => {
    const br = await app.inject({ url: '/assets/main-DmUJ6tXJ.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['vary']).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    const plain = await app.inject({ url: '/assets/main-DmUJ6tXJ.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('hashed assets are immutable for a year; the page and the data are revalidated; every file is cross-origin isolated', async () => {
    const asset = await app.inject({ url: '/assets/main-DmUJ6tXJ.js', headers: { 'accept-encoding': 'br' } });
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const url of ['/', '/data/words.json']) {
      const response = await app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.headers['cross-origin-embedder-policy'], url).toBe('require-corp');
      expect(response.headers['cross-origin-opener-policy'], url).toBe('same-origin');
    }
  });

  it('tells hashed names from the rest', () => {
    expect(cacheControlOf('/srv/dist/assets/tandem-simd-B39D_Gt6.wasm')).toMatch(/immutable/);
    expect(cacheControlOf('/srv/dist/assets/main-DmUJ6tXJ.js.br')).toMatch(/immutable/);
    expect(cacheControlOf('/srv/dist/index.html')).toBe('no-cache');
    expect(cacheControlOf('/srv/dist/data/hnsw-graph.bin')).toBe('no-cache');
  });
});
