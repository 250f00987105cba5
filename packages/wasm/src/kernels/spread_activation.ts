// spreadActivation over a CSR graph (wasm-kernels/spread_activation.ts), for a seed vector [nodes] or a batch of
// them [batch, nodes]. On one thread every seed runs in turn. On several: a batch is split by seeds (each thread runs
// its seeds whole, with its own scratch); one seed is split per hop, each thread scattering a share of the source
// rows (about equal edge counts) into its own sum vector, then combining a share of the nodes, hop after hop.
import type { KernelCall } from '../kernel-exports.ts';
import { dim, type WasmKernel } from '../kernel-support.ts';
import type { RunContext } from '../run-context.ts';
import { splitRange, threadsFor } from '../split.ts';

/**
 * Fewest edges for one seed's hops to be split across threads: below it, two pool round trips and the combine pass
 * per hop cost more than half a hop saves (docs/decisions.md, issue 34).
 */
export const SPLIT_HOP_MIN_EDGES = 1 << 21;

/** What one call spreads: pointers of the graph and the vectors, and the sizes. */
interface Spread {
  readonly rowPtr: number;
  readonly colIdx: number;
  readonly weights: number;
  readonly initial: number;
  readonly out: number;
  readonly nodes: number;
  readonly edges: number;
  readonly seeds: number;
  readonly decay: number;
  readonly threshold: number;
  readonly iterations: number;
}

/** The wasm backend's spreadActivation. */
export const spreadActivationKernel: WasmKernel<'spreadActivation'> = {
  run(op, outs, ctx) {
    const nodes = dim(op.initial, -1);
    const seeds = op.initial.shape.length === 2 ? dim(op.initial, 0) : 1;
    const s: Spread = {
      rowPtr: ctx.pointer(op.rowPtr),
      colIdx: ctx.pointer(op.colIdx),
      weights: ctx.pointer(op.weights),
      initial: ctx.pointer(op.initial),
      out: outs[0] ?? 0,
      nodes,
      edges: dim(op.colIdx, 0),
      seeds,
      decay: op.decay,
      threshold: op.threshold,
      iterations: op.iterations,
    };
    const threads =
      seeds > 1 || s.edges >= SPLIT_HOP_MIN_EDGES
        ? threadsFor(ctx.threads, 2 * s.edges * s.iterations * seeds, seeds > 1 ? seeds : s.nodes, 1)
        : 1;
    if (threads <= 1 || s.nodes === 0) {
      const scratch = ctx.scratch(ctx.kernels.spread_activation_scratch_bytes(nodes), 'activation and sums');
      ctx.kernels.spread_activation_f32(
        s.rowPtr,
        s.colIdx,
        s.weights,
        s.initial,
        s.out,
        scratch,
        nodes,
        s.edges,
        s.decay,
        s.threshold,
        s.iterations,
        seeds,
      );
      return;
    }
    return seeds > 1 ? bySeeds(ctx, s, threads) : byRows(ctx, s, threads);
  },
};

/** Seeds split across threads, each thread running its seeds whole. */
function bySeeds(ctx: RunContext, s: Spread, threads: number): Promise<void> {
  const calls: KernelCall[] = splitRange(s.seeds, threads).map(([first, end]) => ({
    name: 'spread_activation_f32',
    args: [
      s.rowPtr,
      s.colIdx,
      s.weights,
      s.initial + first * s.nodes * 4,
      s.out + first * s.nodes * 4,
      ctx.scratch(ctx.kernels.spread_activation_scratch_bytes(s.nodes), 'activation and sums of a share of the seeds'),
      s.nodes,
      s.edges,
      s.decay,
      s.threshold,
      s.iterations,
      end - first,
    ],
  }));
  return ctx.parallel(calls);
}

/** One seed, each hop split across threads: a scatter of source rows into per-thread sums, then a combine of nodes. */
async function byRows(ctx: RunContext, s: Spread, threads: number): Promise<void> {
  const k = ctx.kernels;
  const vectorBytes = s.nodes * 4;
  const sums = ctx.scratch(threads * vectorBytes, 'sum vectors, one per thread');
  k.spread_zero(sums, threads * vectorBytes);
  const spare = s.iterations > 1 ? ctx.scratch(vectorBytes, 'activation between hops') : s.out;
  const bounds = Array.from({ length: threads + 1 }, (_, p) =>
    k.spread_split_row(s.rowPtr, s.nodes, s.edges, p, threads),
  );
  const shares = splitRange(s.nodes, threads);
  let current = s.initial;
  for (let it = 0; it < s.iterations; it++) {
    // Alternate between spare and out so the last hop lands in out; `initial` is never written.
    const next = (s.iterations - it) % 2 === 1 ? s.out : spare;
    await ctx.parallel(
      bounds.slice(0, threads).map((begin, p) => ({
        name: 'spread_scatter_f32',
        args: [
          s.rowPtr,
          s.colIdx,
          s.weights,
          current,
          sums + p * vectorBytes,
          s.nodes,
          s.edges,
          s.threshold,
          begin,
          bounds[p + 1] ?? s.nodes,
        ],
      })),
    );
    await ctx.parallel(
      shares.map(([begin, end]) => ({
        name: 'spread_combine_f32',
        args: [current, next, sums, threads, s.nodes, s.decay, begin, end],
      })),
    );
    current = next;
  }
}
