// What a synchronous call threw, for tests that check a refusal's type and fields.

/** The error `fn` throws, or undefined when it returns. */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
