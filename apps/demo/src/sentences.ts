// Errors as the page shows them: a sentence, never a class name (minifiers rename classes; Tandem's errors name
// themselves with string literals, which stay in data-error for tests and bug reports). Errors are recognised by
// those names and their fields, not by class, so the page's own bundle needs none of @tandem/core.

/** An error as the page shows it. */
export interface ShownError {
  /** A sentence for people: what went wrong, naming the value and the limit. */
  readonly sentence: string;
  /** The error's stable name (e.g. 'InvalidArgumentError'), kept out of the sentence. */
  readonly name: string;
}

/** `text` with a capital first letter and a final full stop. */
function asSentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** A short printable form of a value named in a sentence. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? `“${value}”` : String(value);
}

/** The sentence for anything thrown. */
export function showError(error: unknown): ShownError {
  if (!(error instanceof Error)) return { sentence: asSentence(String(error)), name: 'unknown' };
  const limit: unknown = Reflect.get(error, 'limit');
  const file: unknown = Reflect.get(error, 'file');
  if (error.name === 'InvalidArgumentError' && 'value' in error && typeof limit === 'string')
    return { sentence: asSentence(`${quoted(Reflect.get(error, 'value'))} ${limit}`), name: error.name };
  if (error.name === 'DemoDataError' && typeof file === 'string')
    return {
      sentence: asSentence(`the data file data/${file} cannot be used: ${error.message.replace(`data/${file}: `, '')}`),
      name: error.name,
    };
  return { sentence: asSentence(error.message), name: error.name };
}
