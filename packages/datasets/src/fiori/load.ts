// loadFioriDocs: @sap-ux/fiori-docs-embeddings' flat vector store, data/embeddings/ in the package:
//   metadata.json   { model: "Xenova/all-MiniLM-L6-v2", dimensions: 384, totalVectors: 778, ... }
//   embeddings.bin  totalVectors x dimensions little-endian f32, row-major, no header (1,195,008 bytes)
//   records.jsonl   one JSON object per line, line i describes row i: { id, content, title, category, path, ... }
// Version 1.2.6 holds 778 chunks (the file has 777 newlines: the last line has none, so `wc -l` says 777).
// Validation: counts agree across the three files, ids are unique non-empty strings, texts are strings, every
// value is finite and every vector has unit length (the model's output is normalised) within 1e-3.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '@tandem/core';
import { DatasetError } from '../errors.ts';
import { packageDir } from '../paths.ts';
import type { DocChunks } from '../types.ts';

/** The npm package holding the data. */
export const FIORI_PACKAGE = '@sap-ux/fiori-docs-embeddings';
const UNIT_NORM_TOLERANCE = 1e-3;

/** Options of loadFioriDocs. */
export interface FioriOptions {
  /** Only the first N chunks. */
  readonly limit?: number;
  /** The folder with metadata.json, embeddings.bin and records.jsonl (default: the installed package's). */
  readonly dir?: string;
}

/** The Fiori documentation chunks with their texts and 384-d embeddings, validated. */
export async function loadFioriDocs(options: FioriOptions = {}): Promise<DocChunks> {
  const { limit } = options;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new InvalidArgumentError('loadFioriDocs.limit', limit, 'must be a positive integer');
  const dir = options.dir ?? path.join(packageDir(FIORI_PACKAGE), 'data', 'embeddings');
  const metaFile = path.join(dir, 'metadata.json');
  const binFile = path.join(dir, 'embeddings.bin');
  const recordsFile = path.join(dir, 'records.jsonl');
  const { dim, total } = parseMetadata(metaFile, await readText(metaFile));
  const records = parseRecords(recordsFile, await readText(recordsFile));
  if (records.ids.length !== total)
    throw new DatasetError(recordsFile, `has ${records.ids.length} records, metadata.json says ${total}`);
  const bin = await readBytes(binFile);
  if (bin.length !== total * dim * 4)
    throw new DatasetError(binFile, `is ${bin.length} bytes, expected ${total} x ${dim} f32 = ${total * dim * 4}`);
  const n = Math.min(limit ?? total, total);
  const vectors = new Float32Array(n * dim);
  const view = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  for (let i = 0; i < n * dim; i++) vectors[i] = view.getFloat32(i * 4, true);
  checkVectors(binFile, vectors, dim);
  return { ids: records.ids.slice(0, n), texts: records.texts.slice(0, n), dim, vectors };
}

function parseMetadata(file: string, text: string): { dim: number; total: number } {
  const meta = parseJson(file, text, undefined);
  const dim: unknown = Reflect.get(meta, 'dimensions');
  const total: unknown = Reflect.get(meta, 'totalVectors');
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim <= 0)
    throw new DatasetError(file, `"dimensions" = ${String(dim)}: must be a positive integer`);
  if (typeof total !== 'number' || !Number.isInteger(total) || total <= 0)
    throw new DatasetError(file, `"totalVectors" = ${String(total)}: must be a positive integer`);
  return { dim, total };
}

function parseRecords(file: string, text: string): { ids: string[]; texts: string[] } {
  const ids: string[] = [];
  const texts: string[] = [];
  const seen = new Map<string, number>();
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const record = parseJson(file, lines[i] ?? '', line);
    const id: unknown = Reflect.get(record, 'id');
    const content: unknown = Reflect.get(record, 'content');
    if (typeof id !== 'string' || id === '') throw new DatasetError(file, '"id" must be a non-empty string', { line });
    if (typeof content !== 'string') throw new DatasetError(file, '"content" must be a string', { line });
    const earlier = seen.get(id);
    if (earlier !== undefined)
      throw new DatasetError(file, `duplicate id ${JSON.stringify(id)} (first on line ${earlier})`, { line });
    seen.set(id, line);
    ids.push(id);
    texts.push(content);
  }
  return { ids, texts };
}

function checkVectors(file: string, vectors: Float32Array, dim: number): void {
  for (let row = 0; row * dim < vectors.length; row++) {
    let sum = 0;
    for (let j = 0; j < dim; j++) {
      const v = vectors[row * dim + j] ?? 0;
      if (!Number.isFinite(v)) throw new DatasetError(file, `value ${j} of vector ${row} is not finite`);
      sum += v * v;
    }
    const norm = Math.sqrt(sum);
    if (Math.abs(norm - 1) > UNIT_NORM_TOLERANCE)
      throw new DatasetError(file, `vector ${row} has norm ${norm}, expected 1 (normalised embeddings)`);
  }
}

function parseJson(file: string, text: string, line: number | undefined): object {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DatasetError(
      file,
      `not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      line === undefined ? { cause: error } : { line, cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new DatasetError(file, 'expected a JSON object', line === undefined ? {} : { line });
  return value;
}

async function readText(file: string): Promise<string> {
  return (await readBytes(file)).toString('utf8');
}

async function readBytes(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new DatasetError(
      file,
      `cannot read it (${error instanceof Error ? error.message : String(error)}); install the data with \`npm ci\` at the repository root`,
      { cause: error },
    );
  }
}
