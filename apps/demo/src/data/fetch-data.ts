// Fetching the prepared files from data/ (next to the page), with errors that say which file and what to run, and
// the bytes counted as they arrive (the page shows "k of N MB"). The engine worker passes the page's base URL (a
// worker has no document).
import { DemoDataError } from './demo-data-error.ts';

const BUILD_HINT = 'prepare it with `npm run build -w @tandem/demo` (or `npm run prepare-data -w @tandem/demo`)';

/** The URL of a file in data/, relative to `base` (default: the page's). */
export function dataUrl(file: string, base: string = document.baseURI): URL {
  return new URL(`data/${file}`, base);
}

async function fetchOk(file: string, base: string | undefined): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(dataUrl(file, base));
  } catch (error) {
    throw new DemoDataError(file, `could not be fetched (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
  if (response.status === 404) throw new DemoDataError(file, `not found: ${BUILD_HINT}`);
  if (!response.ok) throw new DemoDataError(file, `HTTP ${response.status}`);
  return response;
}

/** How a fetch reports and where it fetches from. */
export interface FetchOptions {
  /** Base URL of the page (default document.baseURI). */
  readonly base?: string;
  /** Called with the bytes of each chunk as it arrives (decoded size: after any content encoding). */
  readonly onBytes?: (bytes: number) => void;
}

/** A data file's bytes, counted as they arrive, checked against the size the manifest gives when it gives one. */
export async function fetchBytes(
  file: string,
  expectedBytes?: number,
  options: FetchOptions = {},
): Promise<Uint8Array> {
  const response = await fetchOk(file, options.base);
  const reader = response.body?.getReader();
  let bytes: Uint8Array;
  if (reader === undefined) {
    bytes = new Uint8Array(await response.arrayBuffer());
    options.onBytes?.(bytes.byteLength);
  } else {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
      options.onBytes?.(value.byteLength);
    }
    bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
  }
  if (expectedBytes !== undefined && bytes.byteLength !== expectedBytes) {
    throw new DemoDataError(
      file,
      `is ${bytes.byteLength} bytes; the manifest says ${expectedBytes} (rebuild: ${BUILD_HINT})`,
    );
  }
  return bytes;
}

/** A data file parsed as JSON (unchecked: callers validate it). */
export async function fetchJson(file: string, expectedBytes?: number, options: FetchOptions = {}): Promise<unknown> {
  const text = new TextDecoder().decode(await fetchBytes(file, expectedBytes, options));
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch (error) {
    throw new DemoDataError(file, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
}
