// Runs several timed calls in alternating blocks (three rounds), so a noisy neighbour or a clock change on this
// shared machine hits every engine alike. Each call records its own samples.

/** Rounds of blocks each call is run in. */
export const ROUNDS = 3;

/** A call and how many timed repetitions it gets in all. */
export interface AlternatingCall {
  /** Repetitions over all rounds (rounded up to a multiple of ROUNDS). */
  readonly reps: number;
  /** One timed repetition; records its sample itself. */
  readonly call: () => Promise<void>;
}

/** Runs every call ceil(reps / ROUNDS) times per round, the calls in turn, for ROUNDS rounds. */
export async function alternate(calls: readonly AlternatingCall[], onBlock?: () => void): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    for (const { reps, call } of calls) {
      const perBlock = Math.max(1, Math.ceil(reps / ROUNDS));
      for (let r = 0; r < perBlock; r++) await call();
      onBlock?.();
    }
  }
}
