// matmul (f32), split across threads without duplicated packing: every thread of one call runs this same kernel
// on the same arguments. They first pack all of B into panels together (claiming one K block x 8-column panel at a
// time from a shared counter), then claim chunks of A's rows from a second counter and multiply them against the
// packed B. Claiming instead of fixed halves means a worker that wakes late only costs the time it was late: the
// other threads take its share. A thread that finds every row chunk claimed returns.
//
// State block (16 bytes, zeroed by matmul_f32_shared_reset before the call): i32[0] panels claimed,
// i32[1] panels packed, i32[2] row chunks claimed.
import { KC, PANEL_ROW_BYTES, PACKED_A_BYTES, MC, multiplyPackedBlock } from './shared/matmul_panels';
import { packPanels } from './matmul_f32';

/** Loads a waiting thread makes on the "panels packed" counter before it packs every panel itself (see below). */
const PACK_WAIT_SPINS: i32 = 1 << 24;

/** Bytes of the state block. */
export const SHARED_STATE_BYTES: usize = 16;

@inline function claim(at: usize): i32 {
  if (ASC_FEATURE_THREADS) return atomic.add<i32>(at, 1);
  const v = load<i32>(at);
  store<i32>(at, v + 1);
  return v;
}

@inline function readShared(at: usize): i32 {
  if (ASC_FEATURE_THREADS) return atomic.load<i32>(at);
  return load<i32>(at);
}

/** Scratch bytes shared by all threads of one call: the state block, then all of B packed (k rows x ceil(n/8) panels). */
export function matmul_f32_shared_bytes(k: i32, n: i32): usize {
  return SHARED_STATE_BYTES + <usize>k * <usize>((n + 7) >> 3) * PANEL_ROW_BYTES;
}

/** Per-thread scratch bytes: one packed block of A rows. */
export function matmul_f32_shared_thread_bytes(): usize {
  return PACKED_A_BYTES;
}

/** Zeroes the state block; call once before the threads start. */
export function matmul_f32_shared_reset(shared: usize): void {
  memory.fill(shared, 0, SHARED_STATE_BYTES);
}

/** Packs unit u: panel (u % panels) of K block (u / panels) into its place in the packed B. */
function packUnit(b: usize, k: i32, n: i32, packed: usize, panels: i32, u: i32): void {
  const block = u / panels;
  const panel = u - block * panels;
  const k0 = block * KC;
  const kc = min(KC, k - k0);
  const dst = packed + <usize>k0 * <usize>panels * PANEL_ROW_BYTES + <usize>panel * <usize>kc * PANEL_ROW_BYTES;
  packPanels(b + ((<usize>k0 * <usize>n + <usize>(panel * 8)) << 2), n, kc, dst, min(8, n - panel * 8));
}

/**
 * C[m, n] = A[m, k] x B[k, n] (m >= 1, k >= 1, n >= 1), one thread's part: `shared` holds matmul_f32_shared_bytes
 * and is the same for every thread of the call; `own` holds matmul_f32_shared_thread_bytes for this thread only;
 * `chunkRows` (a multiple of 4, at most MC) is how many rows of A one claim takes.
 */
export function matmul_f32_shared(a: usize, b: usize, c: usize, m: i32, k: i32, n: i32, shared: usize, own: usize, chunkRows: i32): void {
  const panels = (n + 7) >> 3;
  const blocks = (k + KC - 1) / KC;
  const units = blocks * panels;
  const packed = shared + SHARED_STATE_BYTES;
  for (let u = claim(shared); u < units; u = claim(shared)) {
    packUnit(b, k, n, packed, panels, u);
    claim(shared + 4);
  }
  // Every panel is claimed; wait for the ones other threads are still packing. If one of them never finishes (its
  // thread was stopped), pack everything here: packing is idempotent, so a late writer stores the same values.
  let spins = 0;
  while (readShared(shared + 4) < units) {
    if (++spins == PACK_WAIT_SPINS) {
      for (let u = 0; u < units; u++) packUnit(b, k, n, packed, panels, u);
      break;
    }
  }
  const rows = min(max(chunkRows, 4) & ~3, MC);
  const chunks = (m + rows - 1) / rows;
  const lda = <usize>k << 2;
  const ldc = <usize>n << 2;
  for (let chunk = claim(shared + 8); chunk < chunks; chunk = claim(shared + 8)) {
    const i0 = chunk * rows;
    const count = min(rows, m - i0);
    for (let k0 = 0; k0 < k; k0 += KC) {
      const kc = min(KC, k - k0);
      const block = packed + <usize>k0 * <usize>panels * PANEL_ROW_BYTES;
      multiplyPackedBlock(a + <usize>i0 * lda + (<usize>k0 << 2), k, count, kc, block, c + <usize>i0 * ldc, n, k0 > 0, own);
    }
  }
}
