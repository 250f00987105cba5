// The page's checks of the prepared data: each corruption is refused with a DemoDataError naming the file.
import { describe, expect, it } from 'vitest';
import { DemoDataError } from './demo-data-error.ts';
import { parseManifest } from './manifest.ts';
import { decodeVectors, encodeVectors, roundToHalf } from './vectors-format.ts';
import { decodeWordNetCsr, encodeWordNetCsr, parseWordList, parseWordNetMeta } from './wordnet-format.ts';

const rowPtr = Int32Array.from([0, 1, 2]);
const colIdx = Int32Array.from([1, 0]);
const weights = Float32Array.from([0.5, 0.25]);

describe('wordnet-csr.bin', () => {
  it('round-trips', () => {
    const decoded = decodeWordNetCsr(encodeWordNetCsr(rowPtr, colIdx, weights), 2, 2);
    expect([...decoded.rowPtr, ...decoded.colIdx, ...decoded.weights]).toEqual([0, 1, 2, 1, 0, 0.5, 0.25]);
  });

  it('refuses a flipped byte, a short file and counts that disagree with the manifest', () => {
    const bytes = encodeWordNetCsr(rowPtr, colIdx, weights);
    const flipped = bytes.slice();
    flipped[bytes.length - 1] = (flipped[bytes.length - 1] ?? 0) ^ 1;
    expect(() => decodeWordNetCsr(flipped, 2, 2)).toThrow('data/wordnet-csr.bin: checksum mismatch');
    expect(() => decodeWordNetCsr(bytes.slice(0, bytes.length - 4), 2, 2)).toThrow(
      /is 44 bytes; 2 nodes and 2 edges need 48/,
    );
    expect(() => decodeWordNetCsr(bytes, 3, 2)).toThrow(DemoDataError);
    expect(() => decodeWordNetCsr(new Uint8Array(8), 2, 2)).toThrow('shorter than the 20-byte header');
  });
});

describe('vectors.bin', () => {
  it('round-trips the f16-rounded vectors exactly, and refuses a flipped byte or other counts', () => {
    const vectors = roundToHalf(Float32Array.from([0.1, -0.25, 0.333, 1, 0, -1e-3]));
    const bytes = encodeVectors(vectors, 3);
    expect([...decodeVectors(bytes, 2, 3)]).toEqual([...vectors]);
    const flipped = bytes.slice();
    flipped[25] = (flipped[25] ?? 0) ^ 1;
    expect(() => decodeVectors(flipped, 2, 3)).toThrow('data/vectors.bin: checksum mismatch');
    expect(() => decodeVectors(bytes, 3, 3)).toThrow('holds 2 vectors of 3; the manifest says 3 of 3');
  });
});

describe('wordnet.json and words.json', () => {
  it('accepts good entries and names the bad one', () => {
    expect(
      parseWordNetMeta({ synsetIds: ['n:00000001', 'v:00000002'], lemmas: [['a'], ['b', 'c']] }, 2).lemmas,
    ).toEqual([['a'], ['b', 'c']]);
    expect(() => parseWordNetMeta({ synsetIds: ['n:1', 'v:00000002'], lemmas: [['a'], ['b']] }, 2)).toThrow(
      'synsetIds[0] "n:1"',
    );
    expect(() => parseWordNetMeta({ synsetIds: ['n:00000001', 'v:00000002'], lemmas: [['a'], []] }, 2)).toThrow(
      'lemmas[1]',
    );
    expect(parseWordList(['the', 'of'], 2)).toEqual(['the', 'of']);
    expect(() => parseWordList(['the', 'the'], 2)).toThrow('entry 1 "the" is a repeat');
    expect(() => parseWordList(['the'], 2)).toThrow("array of 2 words (the manifest's count)");
  });
});

describe('manifest.json', () => {
  const good = {
    version: 2,
    preparedAt: '2026-11-22T00:00:00.000Z',
    words: { count: 5000, dim: 100 },
    sizes: { words: 40_000, vectors: 1_000_020, hnsw: 1000, wordnetMeta: 500, wordnetCsr: 300 },
    hnsw: { bytes: 1000, M: 16, efConstruction: 200, seed: 42, buildSeconds: 1.5 },
    wordnet: { nodes: 10, edges: 20 },
    benchFiles: 0,
  };

  it('accepts what prepare-data writes', () => {
    expect(parseManifest(good)).toEqual(good);
  });

  it('names the bad field, and asks for a rebuild on another version', () => {
    expect(() => parseManifest({ ...good, version: 1 })).toThrow('version 1 is not 2: rebuild');
    expect(() => parseManifest({ ...good, sizes: { ...good.sizes, vectors: 0 } })).toThrow(
      'sizes.vectors must be an integer >= 1, got 0',
    );
    expect(() => parseManifest({ ...good, words: { count: 0, dim: 100 } })).toThrow(
      'words.count must be an integer >= 1, got 0',
    );
    expect(() => parseManifest({ ...good, hnsw: { ...good.hnsw, buildSeconds: 'x' } })).toThrow(
      'hnsw.buildSeconds must be a finite number',
    );
  });
});
