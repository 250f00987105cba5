// Brute-force top-10 of one query over every vector, per backend (strategy { only }) and under 'auto', through
// VectorOps (the resident unit vectors; one cosineSimilarity op and one topK op per query).
import { sampleStats } from '@tandem/core';
import type { Engine } from '@tandem/core';
import { VectorOps } from '@tandem/memory';
import type { Row } from '../report.ts';

/** Latency rows, and which backend 'auto' used and why. */
export interface BruteForceResult {
  /** One row per backend plus one for auto. */
  readonly rows: Row[];
  /** Backend the scheduler chose under auto for the scores op (last call). */
  readonly autoBackend: string;
  /** The scheduler's reason. */
  readonly autoReason: string;
  /** Median latency per backend name, ms. */
  readonly medians: ReadonlyMap<string, number>;
}

/** Times `reps` single-query searches per backend (after one untimed call that uploads the vectors). */
export async function bruteForceLatency(
  engine: Engine,
  vectors: Float32Array,
  dim: number,
  queries: Float32Array,
  log: (line: string) => void,
): Promise<BruteForceResult> {
  const ops = await VectorOps.create(engine, vectors, dim);
  const rows: Row[] = [];
  const medians = new Map<string, number>();
  const count = vectors.length / dim;
  try {
    const backends = engine.backends().filter((b) => b.available);
    const plans: { label: string; strategy: 'auto' | { only: string }; reps: number }[] = backends.map((b) => ({
      label: b.name,
      strategy: { only: b.name },
      reps: b.name === 'reference' ? 3 : 15,
    }));
    plans.push({ label: 'auto', strategy: 'auto', reps: 15 });
    for (const plan of plans) {
      const times: number[] = [];
      try {
        await ops.search(queries.subarray(0, dim), 10, { strategy: plan.strategy });
        for (let r = 0; r < plan.reps; r++) {
          const q = queries.subarray((r % (queries.length / dim)) * dim, ((r % (queries.length / dim)) + 1) * dim);
          const start = performance.now();
          await ops.search(q, 10, { strategy: plan.strategy });
          times.push(performance.now() - start);
        }
      } catch (error) {
        log(`brute force on ${plan.label} failed: ${error instanceof Error ? error.message : String(error)}`);
        rows.push({
          section: 'brute-force top-10',
          backend: plan.label,
          vectors: count,
          error: error instanceof Error ? error.message : String(error),
        });
        continue;
      }
      const s = sampleStats(times);
      medians.set(plan.label, s.median);
      log(`brute force top-10 over ${count} on ${plan.label}: median ${s.median.toFixed(2)} ms`);
      rows.push({
        section: 'brute-force top-10',
        backend: plan.label,
        vectors: count,
        medianMs: s.median,
        minMs: s.min,
        reps: s.count,
      });
    }
  } finally {
    ops.dispose();
  }
  const last = engine.telemetry
    .opEvents()
    .filter((e) => e.label === 'memory.cosine' && e.ok)
    .at(-1);
  return {
    rows,
    autoBackend: last?.backend ?? 'unknown',
    autoReason: last === undefined ? 'no event' : JSON.stringify(last.reason),
    medians,
  };
}
