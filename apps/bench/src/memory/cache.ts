// Files the memory suite keeps between runs: <repo>/.cache/bench/ (gitignored).
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The folder of the suite's cached indexes. */
export const BENCH_CACHE_DIR = path.resolve(import.meta.dirname, '../../../../.cache/bench');

/** A cached file's bytes and its JSON sidecar, or undefined when either is missing. */
export async function readCached(
  name: string,
): Promise<{ bytes: Uint8Array; meta: Record<string, unknown> } | undefined> {
  try {
    const bytes = await readFile(path.join(BENCH_CACHE_DIR, name));
    const meta: unknown = JSON.parse(await readFile(path.join(BENCH_CACHE_DIR, `${name}.json`), 'utf8'));
    if (typeof meta !== 'object' || meta === null) return undefined;
    return { bytes, meta: Object.fromEntries(Object.entries(meta)) };
  } catch {
    return undefined;
  }
}

/** The sidecar of a cached file, or undefined when the file or its sidecar is missing. */
export async function readMeta(name: string): Promise<Record<string, unknown> | undefined> {
  if (!existsSync(path.join(BENCH_CACHE_DIR, name))) return undefined;
  try {
    const meta: unknown = JSON.parse(await readFile(path.join(BENCH_CACHE_DIR, `${name}.json`), 'utf8'));
    return typeof meta === 'object' && meta !== null ? Object.fromEntries(Object.entries(meta)) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a cached file (atomically) and its sidecar. */
export async function writeCached(name: string, bytes: Uint8Array, meta: Record<string, unknown>): Promise<void> {
  await mkdir(BENCH_CACHE_DIR, { recursive: true });
  const file = path.join(BENCH_CACHE_DIR, name);
  await writeFile(`${file}.tmp`, bytes);
  await rename(`${file}.tmp`, file);
  await writeFile(`${file}.json`, `${JSON.stringify(meta)}\n`);
}

/** Writes only the sidecar of a file some other code wrote into BENCH_CACHE_DIR. */
export async function writeMeta(name: string, meta: Record<string, unknown>): Promise<void> {
  await mkdir(BENCH_CACHE_DIR, { recursive: true });
  await writeFile(path.join(BENCH_CACHE_DIR, `${name}.json`), `${JSON.stringify(meta)}\n`);
}

/** A number field of a sidecar, or undefined. */
export function metaNumber(meta: Record<string, unknown>, key: string): number | undefined {
  const v = meta[key];
  return typeof v === 'number' ? v : undefined;
}
