// Large JSON answers as streams: `prefix`, then the items of one array in slices, each slice built on its own
// compute turn (turns.ts), then `suffix`. A batch answer (25,600 hits, 1.1 MB) or a full trace (10,000 events,
// 3.4 MB) built and serialised in one go held the event loop for a long time (docs/decisions.md, issue 29); in slices of ~100 KB each step
// is short, and a client that stops reading holds at most one slice in memory until its socket times out.
import { Readable } from 'node:stream';
import type { Turns } from './turns.ts';

async function* slices<T>(
  prefix: string,
  items: readonly T[],
  toJson: (item: T) => string,
  suffix: string,
  turns: Turns,
  perSlice: number,
): AsyncGenerator<string> {
  yield prefix;
  for (let start = 0; start < items.length; start += perSlice) {
    await turns.next();
    const slice = items.slice(start, start + perSlice).map(toJson);
    yield `${start === 0 ? '' : ','}${slice.join(',')}`;
  }
  yield suffix;
}

/**
 * A stream of `prefix` + items as JSON separated by commas + `suffix`, `perSlice` items per turn; prefix must open
 * the array and suffix close it (e.g. '{"results":[' and '],"ms":3}'). Buffers at most one slice.
 */
export function jsonStream<T>(
  prefix: string,
  items: readonly T[],
  toJson: (item: T) => string,
  suffix: string,
  turns: Turns,
  perSlice: number,
): Readable {
  return Readable.from(slices(prefix, items, toJson, suffix, turns, perSlice), { highWaterMark: 1, objectMode: true });
}
