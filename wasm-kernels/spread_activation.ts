// spreadActivation over a weighted CSR graph, `iterations` hops:
//   next[j] = a[j] + decay * sum over edges i->j with a[i] >= threshold of w(i,j) * a[i]
// Row pointers are clamped to [0, edges] and out-of-range target indices are skipped, so a malformed graph
// cannot write outside the output.

/** Scratch bytes spread_activation_f32 needs: one activation vector and one sum vector. */
export function spread_activation_scratch_bytes(nodes: i32): usize {
  return (<usize>nodes << 3) + 16;
}

/** out = the activation after `iterations` hops from `initial`; scratch: spread_activation_scratch_bytes(nodes). */
export function spread_activation_f32(
  rowPtr: usize, colIdx: usize, weights: usize, initial: usize, out: usize, scratch: usize,
  nodes: i32, edges: i32, decay: f32, threshold: f32, iterations: i32,
): void {
  const vectorBytes = <usize>nodes << 2;
  const sums = scratch;
  const spare = scratch + vectorBytes;
  let current = initial;
  for (let it = 0; it < iterations; it++) {
    // Alternate between spare and out so the last hop lands in out; `initial` is never written.
    const next = (iterations - it) % 2 == 1 ? out : spare;
    memory.fill(sums, 0, vectorBytes);
    for (let i = 0; i < nodes; i++) {
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
    for (let j = 0; j < nodes; j++) {
      const o = <usize>j << 2;
      store<f32>(next + o, load<f32>(current + o) + decay * load<f32>(sums + o));
    }
    current = next;
  }
}
