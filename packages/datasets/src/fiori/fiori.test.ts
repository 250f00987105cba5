import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { DatasetError } from '../errors.ts';
import { packageDir } from '../paths.ts';
import { FIORI_PACKAGE, loadFioriDocs } from './load.ts';

const REAL_DIR = path.join(packageDir(FIORI_PACKAGE), 'data', 'embeddings');

/** A copy of the real store in a temporary folder, for corrupting. */
async function copyOfStore(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tandem-fiori-'));
  await cp(REAL_DIR, dir, { recursive: true });
  return dir;
}

describe('loadFioriDocs', () => {
  it('loads all 778 chunks x 384 dims with unique ids, texts and unit vectors', async () => {
    const docs = await loadFioriDocs();
    expect(docs.dim).toBe(384);
    expect(docs.ids.length).toBe(778);
    expect(docs.texts.length).toBe(778);
    expect(docs.vectors.length).toBe(778 * 384);
    expect(new Set(docs.ids).size).toBe(778);
    expect(docs.ids[0]).toBe('local-btp-fiori-tools-0-chunk-0');
    expect(docs.texts[0]).toMatch(/^\*\*TITLE\*\*: Deploying an SAP Fiori Application/);
    let sum = 0;
    for (let j = 0; j < 384; j++) sum += (docs.vectors[777 * 384 + j] ?? 0) ** 2;
    expect(Math.sqrt(sum)).toBeCloseTo(1, 5);
  });

  it('returns the first N chunks with `limit`', async () => {
    const all = await loadFioriDocs();
    const some = await loadFioriDocs({ limit: 5 });
    expect(some.ids).toEqual(all.ids.slice(0, 5));
    expect(Array.from(some.vectors)).toEqual(Array.from(all.vectors.subarray(0, 5 * 384)));
    await expect(loadFioriDocs({ limit: -1 })).rejects.toThrow(InvalidArgumentError);
  });

  it('rejects a store whose files disagree, naming the file and line', async () => {
    const shortBin = await copyOfStore();
    const bin = await readFile(path.join(shortBin, 'embeddings.bin'));
    await writeFile(path.join(shortBin, 'embeddings.bin'), bin.subarray(0, bin.length - 4));
    await expect(loadFioriDocs({ dir: shortBin })).rejects.toThrow(
      /embeddings\.bin: is 1195004 bytes, expected 778 x 384/,
    );

    const duplicate = await copyOfStore();
    const records = (await readFile(path.join(duplicate, 'records.jsonl'), 'utf8')).split('\n');
    records[2] = records[1] ?? '';
    await writeFile(path.join(duplicate, 'records.jsonl'), records.join('\n'));
    const error = await loadFioriDocs({ dir: duplicate }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetError);
    expect(String(error)).toMatch(/records\.jsonl:3: duplicate id .* \(first on line 2\)/);

    const badLine = await copyOfStore();
    records[2] = '{"id": "x", ';
    await writeFile(path.join(badLine, 'records.jsonl'), records.join('\n'));
    await expect(loadFioriDocs({ dir: badLine })).rejects.toThrow(/records\.jsonl:3: not valid JSON/);

    const notUnit = await copyOfStore();
    const scaled = Buffer.from(bin);
    scaled.writeFloatLE(scaled.readFloatLE(0) * 50, 0);
    await writeFile(path.join(notUnit, 'embeddings.bin'), scaled);
    await expect(loadFioriDocs({ dir: notUnit })).rejects.toThrow(/vector 0 has norm/);
  });

  it('says how to get the data when it is missing', async () => {
    await expect(loadFioriDocs({ dir: '/nonexistent/fiori' })).rejects.toThrow(/npm ci/);
  });
});
