// One measurement that fails or hangs becomes a reason (for a verdict), never a crash of the suite.
import { errorMessage } from '@tandem/core';

/** A measurement's value, or why there is none. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

/** Runs `measure`; a throw or a run past `timeoutMs` resolves to { ok: false, reason } naming `what`. */
export async function attempt<T>(what: string, timeoutMs: number, measure: () => Promise<T>): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `${what}: no result within ${Math.round(timeoutMs / 1000)} s` }),
      timeoutMs,
    );
  });
  const run = measure().then(
    (value): Outcome<T> => ({ ok: true, value }),
    (error: unknown): Outcome<T> => ({ ok: false, reason: `${what}: ${errorMessage(error)}` }),
  );
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
