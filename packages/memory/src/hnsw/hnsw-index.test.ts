import { InvalidArgumentError } from '@tandem/core';
import { loadWinkEmbeddings, type WordVectors } from '@tandem/datasets';
import { beforeAll, describe, expect, it } from 'vitest';
import { HnswGraph } from './graph.ts';
import { HnswCapacityError, HnswFormatError, HnswIndex, HnswVectorsMismatchError } from './index.ts';
import { cosineScores, topOf } from '../vectors/testing/brute-force.ts';

const N = 5000;
const QUERIES = 200;
let words: WordVectors;
let index: HnswIndex;

/** Exact top-k by cosine over the first `count` rows (ties to the lower index), from the reference. */
function bruteForce(vectors: Float32Array, count: number, dim: number, query: Float32Array, k: number): number[] {
  return topOf(cosineScores(query, 0, vectors.subarray(0, count * dim), dim), k).map((h) => h.index);
}

function row(data: Float32Array, i: number, dim: number): Float32Array {
  return data.slice(i * dim, (i + 1) * dim);
}

/** Queries: the vectors of words 7, 32, 57, ... each perturbed so it is not exactly an indexed point. */
function queryVector(i: number): Float32Array {
  const q = row(words.vectors, (i * 25 + 7) % N, words.dim);
  for (let j = 0; j < q.length; j++) q[j] = (q[j] ?? 0) + 0.05 * Math.sin(i * 31 + j);
  return q;
}

beforeAll(async () => {
  words = await loadWinkEmbeddings({ limit: N });
  index = await HnswIndex.build(words.vectors, words.dim, { M: 16, efConstruction: 100, seed: 7 });
});

describe('HnswIndex on 5,000 wink word vectors', () => {
  it('reaches recall@10 >= 0.95 against brute force at ef = 64', () => {
    let found = 0;
    for (let i = 0; i < QUERIES; i++) {
      const q = queryVector(i);
      const truth = new Set(bruteForce(words.vectors, N, words.dim, q, 10));
      const hits = index.search(q, 10, { ef: 64 });
      expect(hits.length).toBe(10);
      for (const h of hits) if (truth.has(h.index)) found++;
    }
    expect(found / (QUERIES * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('returns cosine scores, best first, that match the stored vectors', () => {
    const q = queryVector(3);
    const hits = index.search(q, 5, { ef: 50 });
    for (let i = 1; i < hits.length; i++) expect(hits[i]?.score ?? 0).toBeLessThanOrEqual(hits[i - 1]?.score ?? 0);
    const best = hits[0];
    expect(best).toBeDefined();
    const v = row(words.vectors, best?.index ?? 0, words.dim);
    let dotProduct = 0;
    for (let j = 0; j < words.dim; j++) dotProduct += (v[j] ?? 0) * (q[j] ?? 0);
    expect(best?.score ?? 0).toBeCloseTo(dotProduct / (Math.hypot(...v) * Math.hypot(...q)), 5);
  });

  it('finds "king" among the nearest words of "queen"', () => {
    const queen = words.words.indexOf('queen');
    const king = words.words.indexOf('king');
    expect(queen).toBeGreaterThanOrEqual(0);
    const hits = index.search(row(words.vectors, queen, words.dim), 5);
    expect(hits[0]?.index).toBe(queen);
    expect(hits.map((h) => h.index)).toContain(king);
  });

  it('searchBatch on the graph equals search query by query', async () => {
    const queries = new Float32Array(20 * words.dim);
    for (let i = 0; i < 20; i++) queries.set(queryVector(i), i * words.dim);
    const batch = await index.searchBatch(queries, 10, { ef: 40 });
    expect(batch.length).toBe(20);
    for (let i = 0; i < 20; i++) expect(batch[i]).toEqual(index.search(queryVector(i), 10, { ef: 40 }));
  });

  it('is deterministic for a given seed', async () => {
    const slice = words.vectors.subarray(0, 500 * words.dim);
    const a = await HnswIndex.build(slice, words.dim, { M: 8, efConstruction: 40, seed: 3 });
    const b = await HnswIndex.build(slice, words.dim, { M: 8, efConstruction: 40, seed: 3 });
    expect(sameBytes(a.save(), b.save())).toBe(true);
  });
});

describe('HnswIndex.insert', () => {
  it('makes vectors inserted after build findable, with the next index', async () => {
    const base = 1000;
    const grown = await HnswIndex.build(words.vectors.subarray(0, base * words.dim), words.dim, {
      M: 12,
      efConstruction: 80,
    });
    for (let i = base; i < base + 300; i++) expect(grown.insert(row(words.vectors, i, words.dim))).toBe(i);
    expect(grown.count).toBe(base + 300);
    let selfFound = 0;
    for (let i = base; i < base + 300; i++) {
      if (grown.search(row(words.vectors, i, words.dim), 1, { ef: 40 })[0]?.index === i) selfFound++;
    }
    expect(selfFound).toBeGreaterThanOrEqual(297);
    let found = 0;
    for (let i = 0; i < 50; i++) {
      const q = queryVector(i);
      const truth = new Set(bruteForce(words.vectors, base + 300, words.dim, q, 10));
      for (const h of grown.search(q, 10, { ef: 64 })) if (truth.has(h.index)) found++;
    }
    expect(found / 500).toBeGreaterThanOrEqual(0.95);
  });

  it('grows an empty index one vector at a time', async () => {
    const empty = await HnswIndex.build(new Float32Array(0), 3);
    expect(empty.search(Float32Array.from([1, 0, 0]), 3)).toEqual([]);
    expect(empty.insert(Float32Array.from([1, 0, 0]))).toBe(0);
    expect(empty.insert(Float32Array.from([0, 1, 0]))).toBe(1);
    expect(empty.insert(Float32Array.from([0.9, 0.1, 0]))).toBe(2);
    const hits = empty.search(Float32Array.from([1, 0.05, 0]), 3);
    expect(hits.map((h) => h.index)).toEqual([0, 2, 1]);
    expect(hits[0]?.score ?? 0).toBeCloseTo(1 / Math.hypot(1, 0.05), 6);
  });

  it('an index grown from empty, its memory moved many times, is the one build makes: same bytes, same answers', async () => {
    const count = 700;
    const options = { M: 6, efConstruction: 40, seed: 5 };
    const built = await HnswIndex.build(words.vectors.subarray(0, count * words.dim), words.dim, options);
    const grown = await HnswIndex.build(new Float32Array(0), words.dim, options);
    for (let i = 0; i < count; i++) grown.insert(row(words.vectors, i, words.dim));
    expect(sameBytes(grown.save(), built.save())).toBe(true);
    for (let i = 0; i < 20; i++)
      expect(grown.search(queryVector(i), 10, { ef: 30 })).toEqual(built.search(queryVector(i), 10, { ef: 30 }));
  });

  it('refuses a graph past the wasm32 memory with HnswCapacityError naming the bytes and the limit', async () => {
    // 1.2M nodes x 1,000 dims is 4.8 GB of vectors alone: refused before any memory is taken.
    const error = await HnswGraph.create(1000, { m: 16, efConstruction: 100 }, 1_200_000, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HnswCapacityError);
    expect(error instanceof HnswCapacityError && error.neededBytes).toBeGreaterThan(4.8e9);
    expect(error instanceof HnswCapacityError && error.limitBytes).toBeLessThanOrEqual(4 * 1024 ** 3);
    expect(error instanceof HnswCapacityError ? error.message : '').toMatch(
      /an HNSW graph of 1200000 nodes x 1000 dims needs \d+ bytes of wasm memory; this host grants at most \d+ \(wasm32: 4 GiB\)/,
    );
  });
});

describe('HnswIndex save/load', () => {
  it('round-trips: same bytes, same answers, and inserts continue identically', async () => {
    const small = await HnswIndex.build(words.vectors.subarray(0, 800 * words.dim), words.dim, {
      M: 10,
      efConstruction: 60,
      seed: 11,
    });
    const bytes = small.save();
    const loaded = await HnswIndex.load(bytes);
    expect(loaded.count).toBe(800);
    expect(loaded.dim).toBe(100);
    expect(loaded.M).toBe(10);
    expect(sameBytes(loaded.save(), bytes)).toBe(true);
    for (let i = 0; i < 20; i++) expect(loaded.search(queryVector(i), 10)).toEqual(small.search(queryVector(i), 10));
    for (let i = 800; i < 900; i++) {
      small.insert(row(words.vectors, i, words.dim));
      loaded.insert(row(words.vectors, i, words.dim));
    }
    expect(sameBytes(loaded.save(), small.save())).toBe(true);
  });

  describe('graph only (save({ vectors: false }), load with the vectors)', () => {
    const COUNT = 800;
    let small: HnswIndex;
    let graphOnly: Uint8Array;
    let vectors: Float32Array;
    beforeAll(async () => {
      vectors = words.vectors.slice(0, COUNT * words.dim);
      small = await HnswIndex.build(vectors, words.dim, { M: 10, efConstruction: 60, seed: 11 });
      graphOnly = small.save({ vectors: false });
    });

    async function loadWith(given: Float32Array | undefined, bytes = graphOnly): Promise<unknown> {
      try {
        await HnswIndex.load(bytes, given === undefined ? {} : { vectors: given });
      } catch (error) {
        return error;
      }
      throw new Error('load accepted it');
    }

    it('round-trips: the vectors section left out, same index, same answers, inserts continue identically', async () => {
      const full = small.save();
      expect(full.length - graphOnly.length).toBe(COUNT * words.dim * 4 - 8); // the vectors out, 8 header bytes in
      expect(new DataView(graphOnly.buffer).getUint32(4, true)).toBe(2);
      const loaded = await HnswIndex.load(graphOnly, { vectors });
      expect(loaded.count).toBe(COUNT);
      expect(loaded.M).toBe(10);
      expect(loaded.efConstruction).toBe(60);
      expect(sameBytes(loaded.save(), full)).toBe(true);
      expect(sameBytes(loaded.save({ vectors: false }), graphOnly)).toBe(true);
      for (let i = 0; i < 20; i++) expect(loaded.search(queryVector(i), 10)).toEqual(small.search(queryVector(i), 10));
      const again = await HnswIndex.load(graphOnly, { vectors });
      for (let i = COUNT; i < COUNT + 50; i++) {
        again.insert(row(words.vectors, i, words.dim));
        loaded.insert(row(words.vectors, i, words.dim));
      }
      // An index grown after load saves (and reloads) with the grown vector set.
      const grown = loaded.save({ vectors: false });
      expect(sameBytes(again.save({ vectors: false }), grown)).toBe(true);
      const reloaded = await HnswIndex.load(grown, { vectors: words.vectors.slice(0, (COUNT + 50) * words.dim) });
      expect(sameBytes(reloaded.save(), loaded.save())).toBe(true);
    });

    it('the vectors are read as given (not kept by reference): editing them after load changes nothing', async () => {
      const copy = vectors.slice();
      const loaded = await HnswIndex.load(graphOnly, { vectors: copy });
      copy.fill(0);
      expect(loaded.search(queryVector(1), 10)).toEqual(small.search(queryVector(1), 10));
    });

    it('refuses other vectors with HnswVectorsMismatchError: count, one value, order, dimension', async () => {
      const fewer = await loadWith(vectors.subarray(0, (COUNT - 1) * words.dim));
      expect(fewer).toBeInstanceOf(HnswVectorsMismatchError);
      expect((fewer as Error).message).toMatch(
        /the index has 800 vectors of dim 100 \(80000 floats\); 79900 floats were given \(799 vectors\)/,
      );
      const edited = vectors.slice();
      edited[12345] = (edited[12345] ?? 0) + 0.001;
      const changed = await loadWith(edited);
      expect(changed).toBeInstanceOf(HnswVectorsMismatchError);
      expect((changed as Error).message).toMatch(
        /CRC-32 of their 800 unit vectors is 0x[0-9a-f]{8}, the index records 0x[0-9a-f]{8}/,
      );
      const swapped = vectors.slice();
      swapped.set(vectors.subarray(0, words.dim), 5 * words.dim);
      swapped.set(vectors.subarray(5 * words.dim, 6 * words.dim), 0);
      expect(await loadWith(swapped)).toBeInstanceOf(HnswVectorsMismatchError);
      // The same count and dim, other rows of the same data set (words 100..899).
      expect(await loadWith(words.vectors.slice(100 * words.dim, (100 + COUNT) * words.dim))).toBeInstanceOf(
        HnswVectorsMismatchError,
      );
    });

    it('needs the vectors for a graph-only file, refuses them for a file holding its own', async () => {
      const missing = await loadWith(undefined);
      expect(missing).toBeInstanceOf(InvalidArgumentError);
      expect((missing as Error).message).toMatch(
        /saved without its vectors \(graph only\); pass the 800 x 100 vectors/,
      );
      const extra = await loadWith(vectors, small.save());
      expect(extra).toBeInstanceOf(InvalidArgumentError);
      expect((extra as Error).message).toMatch(/this index file holds its own vectors/);
      const nan = vectors.slice();
      nan[7] = Number.NaN;
      expect(await loadWith(nan)).toBeInstanceOf(InvalidArgumentError);
    });

    it('rejects a corrupt graph-only file with HnswFormatError (the checksum covers the header, CRC field included)', async () => {
      const crcFlipped = graphOnly.slice();
      crcFlipped[48] = (crcFlipped[48] ?? 0) ^ 1;
      expect(await loadWith(vectors, crcFlipped)).toBeInstanceOf(HnswFormatError);
      expect(((await loadWith(vectors, crcFlipped)) as Error).message).toMatch(/checksum mismatch/);
      const truncated = await loadWith(vectors, graphOnly.subarray(0, graphOnly.length - 8));
      expect((truncated as Error).message).toMatch(
        new RegExp(`truncated at offset ${graphOnly.length - 8}: the upper links section ends at ${graphOnly.length}`),
      );
      expect(((await loadWith(vectors, graphOnly.subarray(0, 50))) as Error).message).toMatch(
        /the version 2 header needs 56 bytes/,
      );
      const longer = new Uint8Array(graphOnly.length + 4);
      longer.set(graphOnly);
      expect(((await loadWith(vectors, longer)) as Error).message).toMatch(
        /4 unexpected bytes after the upper links section/,
      );
    });
  });

  describe('rejects corrupt files with HnswFormatError', () => {
    let bytes: Uint8Array;
    beforeAll(async () => {
      bytes = (
        await HnswIndex.build(words.vectors.subarray(0, 200 * words.dim), words.dim, { M: 4, efConstruction: 20 })
      ).save();
    });

    async function loadError(edit: (b: Uint8Array) => Uint8Array): Promise<HnswFormatError> {
      try {
        await HnswIndex.load(edit(bytes.slice()));
      } catch (error) {
        if (error instanceof HnswFormatError) return error;
        throw error;
      }
      throw new Error('load accepted a corrupt file');
    }

    /** Writes an i32 then fixes the checksum, so the structural checks are what catches the edit. */
    function patched(b: Uint8Array, offset: number, value: number): Uint8Array {
      const view = new DataView(b.buffer);
      view.setInt32(offset, value, true);
      return resealed(b);
    }

    it('bad magic, unknown version, truncation, trailing bytes', async () => {
      expect((await loadError((b) => ((b[0] = 0x58), b))).message).toMatch(/bad magic/);
      expect((await loadError((b) => ((b[4] = 3), b))).message).toMatch(/unsupported version 3/);
      const truncated = await loadError((b) => b.subarray(0, b.length - 10));
      expect(truncated.message).toMatch(
        new RegExp(`truncated at offset ${bytes.length - 10}: the vectors section ends at ${bytes.length}`),
      );
      expect(truncated.offset).toBe(bytes.length - 10);
      expect((await loadError((b) => b.subarray(0, 20))).message).toMatch(
        /truncated at offset 20: the header needs 48 bytes/,
      );
      const longer = new Uint8Array(bytes.length + 4);
      longer.set(bytes);
      expect((await loadError(() => longer)).message).toMatch(/4 unexpected bytes after the vectors section/);
    });

    it('checksum mismatch', async () => {
      expect((await loadError((b) => ((b[b.length - 1] = (b[b.length - 1] ?? 0) ^ 0x10), b))).message).toMatch(
        /checksum mismatch/,
      );
    });

    it('a neighbour index out of range, naming node, level and offset', async () => {
      const links0At = 48 + Math.ceil(200 / 4) * 4;
      const firstNeighbour = links0At + 4; // node 0's list: [count, neighbour, ...]
      const error = await loadError((b) => patched(b, firstNeighbour, 5000));
      expect(error.message).toMatch(/neighbour index 5000 of node 0 on level 0 is out of range/);
      expect(error.offset).toBe(firstNeighbour);
      expect((await loadError((b) => patched(b, links0At, 99))).message).toMatch(
        /node 0 level 0 has 99 neighbours, the limit is 8/,
      );
    });

    it('an entry point out of range', async () => {
      expect((await loadError((b) => patched(b, 28, 200))).message).toMatch(/entry point 200 out of range/);
    });
  });
});

describe('HnswIndex argument checks', () => {
  it('rejects bad build options, vectors, queries, k and ef with InvalidArgumentError', async () => {
    await expect(HnswIndex.build(new Float32Array(10), 3)).rejects.toThrow(InvalidArgumentError);
    await expect(HnswIndex.build(new Float32Array(9), 0)).rejects.toThrow(InvalidArgumentError);
    await expect(HnswIndex.build(new Float32Array(9), 3, { M: 1 })).rejects.toThrow(/M = 1/);
    await expect(HnswIndex.build(new Float32Array(9), 3, { efConstruction: 0 })).rejects.toThrow(/efConstruction = 0/);
    await expect(HnswIndex.build(Float32Array.from([1, Number.NaN, 0]), 3)).rejects.toThrow(/must be finite/);
    const small = await HnswIndex.build(Float32Array.from([1, 0, 0, 0, 1, 0]), 3);
    expect(() => small.search(new Float32Array(2), 1)).toThrow(/search\.query\.length = 2/);
    expect(() => small.search(new Float32Array(3), 0)).toThrow(/search\.k = 0/);
    expect(() => small.search(new Float32Array(3), 5, { ef: 4 })).toThrow(
      /search\.ef = 4: must be an integer >= k \(5\)/,
    );
    expect(() => small.insert(Float32Array.from([1, 2, Number.POSITIVE_INFINITY]))).toThrow(InvalidArgumentError);
    await expect(small.searchBatch(new Float32Array(4), 1)).rejects.toThrow(/searchBatch\.queries\.length = 4/);
    await expect(small.searchBatch(new Float32Array(3), 1, { mode: 'exact' })).rejects.toThrow(
      /needs the index to be built or loaded with an engine/,
    );
    await expect(HnswIndex.load(new Uint8Array(3))).rejects.toThrow(HnswFormatError);
  });
});

/** Byte-for-byte equality (toEqual on large typed arrays is slow). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Recomputes the CRC-32 field (offset 44) over bytes 48.. so a deliberate edit passes the checksum. */
function resealed(b: Uint8Array): Uint8Array {
  let c = ~0 >>> 0;
  for (let i = 48; i < b.length; i++) {
    c ^= b[i] ?? 0;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  new DataView(b.buffer).setUint32(44, ~c >>> 0, true);
  return b;
}
