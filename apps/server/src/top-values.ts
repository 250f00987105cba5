// The k largest positive values of an activation vector, without sorting all of them: a spread over WordNet
// reaches up to 117,659 synsets, and sorting every reached one held the event loop (docs/decisions.md, issue 32).
// A min-heap of the k best so far makes it one pass, O(n log k).

/** Indices of the k largest positive values, largest first (ties: lower index first), and how many are positive. */
export function topPositive(values: Float32Array, k: number): { top: number[]; positive: number } {
  const heap: number[] = []; // indices; heap[0] is the worst of the best k so far
  // Whether index a ranks below index b: smaller value, or the same value at a higher index.
  const worse = (a: number, b: number): boolean => {
    const va = values[a] ?? 0;
    const vb = values[b] ?? 0;
    return va < vb || (va === vb && a > b);
  };
  const siftDown = (at: number): void => {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < heap.length && worse(heap[left] ?? 0, heap[worst] ?? 0)) worst = left;
      if (right < heap.length && worse(heap[right] ?? 0, heap[worst] ?? 0)) worst = right;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst] ?? 0, heap[at] ?? 0];
      at = worst;
    }
  };
  const siftUp = (at: number): void => {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!worse(heap[at] ?? 0, heap[parent] ?? 0)) return;
      [heap[at], heap[parent]] = [heap[parent] ?? 0, heap[at] ?? 0];
      at = parent;
    }
  };
  let positive = 0;
  for (let i = 0; i < values.length; i++) {
    if (!((values[i] ?? 0) > 0)) continue;
    positive++;
    if (k <= 0) continue;
    if (heap.length < k) {
      heap.push(i);
      siftUp(heap.length - 1);
    } else if (worse(heap[0] ?? 0, i)) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return { top: heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0)), positive };
}
