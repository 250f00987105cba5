// Errors as the page shows them: a sentence, never a class name (minifiers rename classes; TandemError subclasses
// name themselves with string literals, which stay in data-error for tests and bug reports).
import { AllBackendsFailedError, InvalidArgumentError, TandemError } from '@tandem/core';
import { DemoDataError } from './data/demo-data-error.ts';

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
  return /[.!?)]$/.test(capital) && !capital.endsWith('...') ? (capital.endsWith(')') ? `${capital}.` : capital) : `${capital}.`;
}

/** A short printable form of a value named in a sentence. */
function quoted(value: unknown): string {
  return typeof value === 'string' ? `“${value}”` : String(value);
}

/** The sentence for anything thrown. */
export function showError(error: unknown): ShownError {
  if (error instanceof InvalidArgumentError) return { sentence: asSentence(`${quoted(error.value)} ${error.limit}`), name: error.name };
  if (error instanceof DemoDataError) return { sentence: asSentence(`the data file data/${error.file} cannot be used: ${error.message.replace(`data/${error.file}: `, '')}`), name: error.name };
  if (error instanceof AllBackendsFailedError) return { sentence: asSentence(error.message), name: error.name };
  if (error instanceof TandemError) return { sentence: asSentence(error.message), name: error.name };
  if (error instanceof Error) return { sentence: asSentence(error.message), name: error.name };
  return { sentence: asSentence(String(error)), name: 'unknown' };
}
