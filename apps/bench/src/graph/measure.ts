// One measurement of the decoder block: a prefill of `tokens` tokens from an empty cache, or a decode of one token
// after a cache of `kv` tokens, timed from the call to the output read back on the host.
import type { Engine } from '@tandem/core';
import type { DecoderBlock, GraphStrategy, KvCache, RunReport } from '@tandem/graph';
import { randomActivations } from '@tandem/graph';
import type { BackendPreference } from '@tandem/graph';

/** A phase of inference. */
export type Phase =
  | { readonly kind: 'prefill'; readonly tokens: number }
  | { readonly kind: 'decode'; readonly kv: number };

/** What one run measured. */
export interface Sample {
  /** Wall time, ms (forward + reading the output). */
  readonly ms: number;
  /** Tokens processed. */
  readonly tokens: number;
  /** The step's report (placement, bytes moved). */
  readonly report: RunReport;
}

/** The phase's name in rows, e.g. 'prefill 128' or 'decode @512'. */
export function phaseName(phase: Phase): string {
  return phase.kind === 'prefill' ? `prefill ${phase.tokens}` : `decode @${phase.kv}`;
}

/** Runs one phase once. For decode, `filled` holds exactly `kv` tokens; the step appends to a fork of it (no copy). */
export async function runPhase(
  block: DecoderBlock,
  phase: Phase,
  strategy: GraphStrategy,
  preference: BackendPreference,
  filled: KvCache | undefined,
): Promise<Sample> {
  const tokens = phase.kind === 'prefill' ? phase.tokens : 1;
  let cache: KvCache;
  if (phase.kind === 'prefill') cache = block.newCache(phase.tokens);
  else {
    if (filled === undefined || filled.length !== phase.kv)
      throw new Error(`decode @${phase.kv} needs a cache of ${phase.kv} tokens`);
    cache = filled.fork();
  }
  const x = randomActivations(block.config, tokens, 3);
  const t0 = performance.now();
  const step = await block.forward(x, cache, { ...preference, strategy });
  await step.outputs.get('out').read();
  const ms = performance.now() - t0;
  step.outputs.dispose();
  cache.dispose();
  return { ms, tokens, report: step.report };
}

/** A cache of `kv` tokens for decode runs (fork it per run), filled by one prefill on the CPU backend; dispose it after. */
export async function filledCache(block: DecoderBlock, kv: number, preference: BackendPreference): Promise<KvCache> {
  const cache = block.newCache(kv + 1);
  const step = await block.forward(randomActivations(block.config, kv, 4), cache, {
    ...preference,
    strategy: 'cpu-only',
  });
  step.outputs.dispose();
  return cache;
}

/**
 * Gives the filled cache a replica on `backend` too (one upload, untimed), as if it had been computed there: the decode
 * runs then find it where a real sequence on that backend would have it. Without this, a strategy's first decode run
 * pays the cache's one-time move from the CPU (where the bench fills it), and on a software GPU, where GPU strategies
 * run once with no warm-up, that one run is all that is measured.
 */
export async function replicateCache(engine: Engine, cache: KvCache, backend: string): Promise<void> {
  const held = cache.tensors();
  if (held === undefined) return;
  for (const t of [held.k, held.v]) {
    const empty = engine.tensor(new Float32Array(0), [0, ...t.shape.slice(1)]);
    const [copy] = await engine.run({ op: 'concat', a: t, b: empty }, { strategy: { only: backend } });
    copy?.dispose();
    empty.dispose();
  }
}
