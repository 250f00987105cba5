import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../errors.ts';
import { loadWinkEmbeddings } from './load.ts';
import { readWinkJson } from './read-json.ts';

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'tandem-wink-'));
}

/** A wink-shaped JSON file: words and their vectors (norm and index appended as wink does). */
function winkJson(words: string[], vectors: number[][], edit?: (entries: number[][]) => void): string {
  const dim = vectors[0]?.length ?? 0;
  const entries = vectors.map((v, i) => [...v, Math.hypot(...v), i]);
  edit?.(entries);
  const body = words.map((w, i) => `${JSON.stringify(w)}:[${(entries[i] ?? []).join(',')}]`).join(',');
  return `{"precision":8,"l2NormIndex":${dim},"wordIndex":${dim + 1},"size":${words.length},"dimensions":${dim},"words":${JSON.stringify(words)},"vectors":{${body}},"unkVector":[${new Array(dim).fill(0).join(',')},-1]}`;
}

const WORDS = ['the', '"', 'naïve', 'back\\slash', 'x'];
const VECTORS = [
  [0.5, -1.25, 3],
  [-0.038194, 1e-3, 2.5e2],
  [0, 0, 0],
  [1, 2, 3],
  [-7.125, 0.000001, 42],
];

async function writeSample(dir: string, text: string): Promise<string> {
  const file = path.join(dir, 'sample.json');
  await writeFile(file, text);
  return file;
}

describe('readWinkJson', () => {
  it('parses every entry exactly, whatever the chunk boundaries', async () => {
    const file = await writeSample(await tempDir(), winkJson(WORDS, VECTORS));
    for (const chunkBytes of [1, 7, 64, 1 << 20]) {
      const data = await readWinkJson(file, { chunkBytes });
      expect(data.words).toEqual(WORDS);
      expect(data.dim).toBe(3);
      expect(Array.from(data.vectors)).toEqual(Array.from(Float32Array.from(VECTORS.flat())));
    }
  });

  it('stops after the first `limit` words', async () => {
    const file = await writeSample(await tempDir(), winkJson(WORDS, VECTORS));
    const data = await readWinkJson(file, { limit: 2, chunkBytes: 5 });
    expect(data.words).toEqual(['the', '"']);
    expect(Array.from(data.vectors)).toEqual(Array.from(Float32Array.from(VECTORS.slice(0, 2).flat())));
  });

  it.each([
    ['a wrong stored norm', (e: number[][]) => void (e[3]![3] = 99), /"back\\\\slash".*computed norm/],
    ['an index naming another word', (e: number[][]) => void (e[1]![4] = 0), /word index 0 names "the"/],
    ['an index out of range', (e: number[][]) => void (e[1]![4] = 9), /outside 0\.\.4/],
    ['a missing number', (e: number[][]) => void e[2]!.splice(0, 1), /expected 5 numbers .* found 4/],
  ])('rejects %s with a DatasetError naming the file', async (_name, edit, message) => {
    const file = await writeSample(await tempDir(), winkJson(WORDS, VECTORS, edit));
    const error = await readWinkJson(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetError);
    expect(String(error)).toContain(file);
    expect(String(error)).toMatch(message);
  });

  it('rejects malformed JSON at its byte offset and a header that disagrees with itself', async () => {
    const dir = await tempDir();
    const text = winkJson(WORDS, VECTORS);
    const broken = text.replace('"x":[', '"x" [');
    await expect(readWinkJson(await writeSample(dir, broken))).rejects.toThrow(
      new RegExp(`byte offset ${Buffer.byteLength(broken.slice(0, broken.indexOf('"x" ['))) + 4}: expected ':'`),
    );
    await expect(readWinkJson(await writeSample(dir, text.replace('"size":5', '"size":6')))).rejects.toThrow(
      /"words" has 5 entries, "size" says 6/,
    );
    await expect(readWinkJson(await writeSample(dir, '{"a":1}'))).rejects.toThrow(DatasetError);
  });
});

describe('loadWinkEmbeddings', () => {
  it('reads the first 3,000 words of the real package, in frequency order, without writing a cache', async () => {
    const cacheDir = await tempDir();
    const data = await loadWinkEmbeddings({ limit: 3000, cacheDir });
    expect(data.words.length).toBe(3000);
    expect(data.dim).toBe(100);
    expect(data.vectors.length).toBe(300_000);
    expect(data.words.slice(0, 6)).toEqual(['the', ',', '.', 'of', 'to', 'and']);
    // GloVe 6B 100d's first values for "the" (the file stores them with 5-6 significant digits).
    expect(data.vectors[0]).toBeCloseTo(-0.038194, 6);
    expect(data.vectors[1]).toBeCloseTo(-0.24487, 6);
    expect(await readdir(cacheDir)).toEqual([]);
  });

  it('converts a full file once to a binary cache and reads the cache afterwards', async () => {
    const dir = await tempDir();
    const sourceFile = await writeSample(dir, winkJson(WORDS, VECTORS));
    const cacheDir = path.join(dir, 'cache');
    const progress: number[] = [];
    const first = await loadWinkEmbeddings({ sourceFile, cacheDir, onProgress: (done) => progress.push(done) });
    expect(progress.length).toBeGreaterThan(0);
    const cacheFile = path.join(cacheDir, 'sample.json.v1.bin');
    expect(existsSync(cacheFile)).toBe(true);
    // Corrupting the JSON after conversion (same size) is invisible: the cache is what gets read now.
    await writeFile(sourceFile, winkJson(WORDS, VECTORS).replace('"x":[', '"x" ['));
    const second = await loadWinkEmbeddings({ sourceFile, cacheDir });
    expect(second).toEqual(first);
    const sliced = await loadWinkEmbeddings({ sourceFile, cacheDir, limit: 2 });
    expect(sliced.words).toEqual(['the', '"']);
    expect(Array.from(sliced.vectors)).toEqual(Array.from(first.vectors.subarray(0, 6)));
  });

  it('rejects a bad limit and a missing source with typed errors', async () => {
    await expect(loadWinkEmbeddings({ limit: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(loadWinkEmbeddings({ limit: 2.5 })).rejects.toThrow(InvalidArgumentError);
    await expect(loadWinkEmbeddings({ sourceFile: '/nonexistent/wink.json' })).rejects.toThrow(/npm ci/);
  });
});
