// A static file server for built pages, with or without the COOP/COEP headers that make a page cross-origin isolated
// (SharedArrayBuffer, hence WASM threads). Paths outside the folder get 404.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
};

/** A running server. */
export interface StaticServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Stops it. */
  close(): Promise<void>;
}

/** Serves `dir` on a free port of 127.0.0.1; `isolated` adds COOP/COEP. */
export async function serveStatic(dir: string, isolated: boolean): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const file = path.join(dir, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
    if (!file.startsWith(dir + path.sep)) {
      response.writeHead(404).end();
      return;
    }
    const isolation = isolated
      ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }
      : {};
    readFile(file).then(
      (body) =>
        response
          .writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', ...isolation })
          .end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the static server has no port');
  return {
    origin: `http://127.0.0.1:${(address satisfies AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
