// topK: the k largest values of each row, descending, with their indices; ties go to the lower index and NaN ranks
// below -inf. A size-k min-heap (worst at the root) lives in the output row itself, then is heap-sorted in place.

/** For each of `rows` rows of n floats: values[k] and indices[k] (i32), best first. */
export function top_k_f32(x: usize, values: usize, indices: usize, rows: i32, n: i32, k: i32): void {
  for (let r = 0; r < rows; r++) {
    const xr = x + ((<usize>r * <usize>n) << 2);
    const vr = values + ((<usize>r * <usize>k) << 2);
    const ir = indices + ((<usize>r * <usize>k) << 2);
    for (let i = 0; i < k; i++) {
      store<f32>(vr + (<usize>i << 2), load<f32>(xr + (<usize>i << 2)));
      store<i32>(ir + (<usize>i << 2), i);
    }
    for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(vr, ir, i, k);
    for (let i = k; i < n; i++) {
      const v = load<f32>(xr + (<usize>i << 2));
      // The root is the worst kept; a later index never wins a tie, so only a strictly better value gets in.
      if (better(v, i, load<f32>(vr), load<i32>(ir))) {
        store<f32>(vr, v);
        store<i32>(ir, i);
        siftDown(vr, ir, 0, k);
      }
    }
    // Heap sort: move the worst to the end, shrink; the row ends best-first.
    for (let end = k - 1; end > 0; end--) {
      swap(vr, ir, 0, end);
      siftDown(vr, ir, 0, end);
    }
  }
}

/** Whether (va, ia) ranks above (vb, ib): larger value, NaN lowest, lower index on ties. */
@inline function better(va: f32, ia: i32, vb: f32, ib: i32): bool {
  const naA = isNaN(va), naB = isNaN(vb);
  if (naA || naB) return naA && naB ? ia < ib : naB;
  return va > vb || (va == vb && ia < ib);
}

/** Restores the min-heap (worst at the root) below position i of a heap of `size`. */
function siftDown(v: usize, idx: usize, start: i32, size: i32): void {
  let i = start;
  while (true) {
    const l = 2 * i + 1;
    if (l >= size) return;
    let worst = l;
    const r = l + 1;
    if (r < size && better(load<f32>(v + (<usize>l << 2)), load<i32>(idx + (<usize>l << 2)), load<f32>(v + (<usize>r << 2)), load<i32>(idx + (<usize>r << 2)))) {
      worst = r;
    }
    if (!better(load<f32>(v + (<usize>i << 2)), load<i32>(idx + (<usize>i << 2)), load<f32>(v + (<usize>worst << 2)), load<i32>(idx + (<usize>worst << 2)))) return;
    swap(v, idx, i, worst);
    i = worst;
  }
}

/** Swaps entries a and b of the paired value/index arrays. */
@inline function swap(v: usize, idx: usize, a: i32, b: i32): void {
  const pa = <usize>a << 2, pb = <usize>b << 2;
  const tv = load<f32>(v + pa);
  store<f32>(v + pa, load<f32>(v + pb));
  store<f32>(v + pb, tv);
  const ti = load<i32>(idx + pa);
  store<i32>(idx + pa, load<i32>(idx + pb));
  store<i32>(idx + pb, ti);
}
