import { describe, expect, it } from 'vitest';
import { cachedOrigin, describeOrigin, tandemCacheNames } from './ours.ts';

describe('memory suite index origins', () => {
  it('says an index was loaded from which cache, with the build time, CPU and date its sidecar records', () => {
    const origin = cachedOrigin(
      'x.tdhg',
      { buildMs: 331325.5, builtOn: 'AMD EPYC (one thread)', builtAt: '2026-11-22T11:19:51.112Z' },
      331325.5,
      1234,
    );
    expect(describeOrigin('tandem', origin)).toBe(
      'tandem loaded from .cache/bench/x.tdhg in 1.2 s (its build took 331.3 s when the cache was made, on AMD EPYC (one thread), 2026-11-22)',
    );
    const bare = cachedOrigin('y.bin', { buildMs: 155301 }, 155301, 500);
    expect(describeOrigin('hnswlib-node', bare)).toBe(
      'hnswlib-node loaded from .cache/bench/y.bin in 0.5 s (its build took 155.3 s when the cache was made)',
    );
  });

  it('says an index was built in this run', () => {
    expect(
      describeOrigin('tandem', {
        cacheFile: undefined,
        buildMs: 5829,
        builtOn: undefined,
        builtAt: undefined,
        loadMs: 0,
      }),
    ).toBe('tandem built in this run in 5.8 s');
  });

  it('names the graph-only cache the GPU pack sends (gpu-pack.sh has the same name)', () => {
    expect(tandemCacheNames(341479, { m: 16, efConstruction: 200, seed: 100 })).toEqual({
      graph: 'tandem-hnsw-wink-341479-M16-efc200-seed100.tdhg',
      full: 'tandem-hnsw-wink-341479-M16-efc200-seed100.tdhn',
    });
  });
});
