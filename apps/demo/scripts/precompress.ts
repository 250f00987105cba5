// Brotli and gzip copies of the built files, written next to each (x.js.br, x.js.gz) for servers that serve them
// as they are (the Tandem server's @fastify/static preCompressed): compressed once at build time, at high quality,
// instead of on every request. Only files worth it: 1 KiB or more, and a copy under 95% of the original.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Extensions compressed. */
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.json', '.svg', '.wasm', '.bin', '.txt', '.map']);

/** What precompress wrote. */
export interface PrecompressReport {
  /** Files compressed. */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
  /** Their brotli copies' bytes. */
  readonly brotliBytes: number;
}

async function* filesUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else if (entry.isFile()) yield full;
  }
}

/** Writes .br and .gz copies of the compressible files under `dir`. */
export async function precompress(dir: string): Promise<PrecompressReport> {
  let files = 0;
  let bytes = 0;
  let brotliBytes = 0;
  for await (const file of filesUnder(dir)) {
    if (!COMPRESSIBLE.has(path.extname(file)) || (await stat(file)).size < 1024) continue;
    const data = await readFile(file);
    const [br, gzipped] = await Promise.all([
      brotli(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: data.byteLength },
      }),
      gz(data, { level: 9 }),
    ]);
    if (br.byteLength < data.byteLength * 0.95) await writeFile(`${file}.br`, br);
    if (gzipped.byteLength < data.byteLength * 0.95) await writeFile(`${file}.gz`, gzipped);
    files++;
    bytes += data.byteLength;
    brotliBytes += Math.min(br.byteLength, data.byteLength);
  }
  return { files, bytes, brotliBytes };
}
