// spreadActivation over a weighted CSR graph, `iterations` hops, for each of `rows` seed vectors:
//   next[j] = a[j] + decay * sum over edges i->j with a[i] >= threshold of w(i,j) * a[i]
// Row pointers are clamped to [0, edges] and out-of-range target indices are skipped, so a malformed graph
// cannot write outside the output. One thread runs spread_activation_f32 (seed after seed); several threads split one
// seed's hops: each scatters a share of the source rows into its own sums (spread_scatter_f32), then each combines a
// share of the nodes (spread_combine_f32), hop after hop.

/** Scratch bytes spread_activation_f32 needs: one activation vector and one sum vector. */
export function spread_activation_scratch_bytes(nodes: i32): usize {
  return (<usize>nodes << 3) + 16;
}

/** sums[j] += w(i, j) * a[i] for every edge i -> j of rows [rowBegin, rowEnd) with a[i] >= threshold. */
@inline function scatterRows(rowPtr: usize, colIdx: usize, weights: usize, current: usize, sums: usize, nodes: i32, edges: i32, threshold: f32, rowBegin: i32, rowEnd: i32): void {
  for (let i = rowBegin; i < rowEnd; i++) {
    const a = load<f32>(current + (<usize>i << 2));
    if (!(a >= threshold)) continue;
    const begin = min(<u32>edges, load<u32>(rowPtr + (<usize>i << 2)));
    const end = min(<u32>edges, load<u32>(rowPtr + (<usize>(i + 1) << 2)));
    for (let e = begin; e < end; e++) {
      const j = load<u32>(colIdx + (<usize>e << 2));
      if (j >= <u32>nodes) continue;
      const at = sums + (<usize>j << 2);
      store<f32>(at, load<f32>(at) + load<f32>(weights + (<usize>e << 2)) * a);
    }
  }
}

/**
 * out = the activation after `iterations` hops from `initial`, for `rows` seed vectors of `nodes` each (row after row);
 * scratch: spread_activation_scratch_bytes(nodes), reused by every row.
 */
export function spread_activation_f32(
  rowPtr: usize, colIdx: usize, weights: usize, initial: usize, out: usize, scratch: usize,
  nodes: i32, edges: i32, decay: f32, threshold: f32, iterations: i32, rows: i32,
): void {
  const vectorBytes = <usize>nodes << 2;
  const sums = scratch;
  const spare = scratch + vectorBytes;
  for (let r = 0; r < rows; r++) {
    const target = out + <usize>r * vectorBytes;
    let current = initial + <usize>r * vectorBytes;
    for (let it = 0; it < iterations; it++) {
      // Alternate between spare and the row's output so the last hop lands in the output; `initial` is never written.
      const next = (iterations - it) % 2 == 1 ? target : spare;
      memory.fill(sums, 0, vectorBytes);
      scatterRows(rowPtr, colIdx, weights, current, sums, nodes, edges, threshold, 0, nodes);
      for (let j = 0; j < nodes; j++) {
        const o = <usize>j << 2;
        store<f32>(next + o, load<f32>(current + o) + decay * load<f32>(sums + o));
      }
      current = next;
    }
  }
}

/** One thread's share of a hop: sums[j] += w(i, j) * a[i] over source rows [rowBegin, rowEnd) (sums are not cleared). */
export function spread_scatter_f32(
  rowPtr: usize, colIdx: usize, weights: usize, current: usize, sums: usize, nodes: i32, edges: i32, threshold: f32, rowBegin: i32, rowEnd: i32,
): void {
  scatterRows(rowPtr, colIdx, weights, current, sums, nodes, edges, threshold, max(0, rowBegin), min(nodes, rowEnd));
}

/**
 * One thread's share of the end of a hop: for j in [begin, end), next[j] = current[j] + decay * (the sum of `parts`
 * sum vectors of `nodes` each, back to back from `sums`), and those sums are zeroed for the next hop.
 */
export function spread_combine_f32(current: usize, next: usize, sums: usize, parts: i32, nodes: i32, decay: f32, begin: i32, end: i32): void {
  const stride = <usize>nodes << 2;
  for (let j = max(0, begin); j < min(nodes, end); j++) {
    const o = <usize>j << 2;
    let total: f32 = 0;
    for (let p = 0; p < parts; p++) {
      const at = sums + <usize>p * stride + o;
      total += load<f32>(at);
      store<f32>(at, 0);
    }
    store<f32>(next + o, load<f32>(current + o) + decay * total);
  }
}

/** The first source row of share `part` of `parts` when rows are split into shares of about equal edge counts. */
export function spread_split_row(rowPtr: usize, nodes: i32, edges: i32, part: i32, parts: i32): i32 {
  if (part <= 0) return 0;
  if (part >= parts) return nodes;
  const goal = <u32>((<u64>edges * <u64>part) / <u64>parts);
  let lo = 0;
  let hi = nodes;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (load<u32>(rowPtr + (<usize>mid << 2)) < goal) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Zeroes `bytes` bytes at `at` (the sum vectors before the first hop). */
export function spread_zero(at: usize, bytes: usize): void {
  memory.fill(at, 0, bytes);
}
