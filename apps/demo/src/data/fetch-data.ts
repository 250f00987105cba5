// Fetching the prepared files from data/ (next to the page), with errors that say which file and what to run.
import { DemoDataError } from './demo-data-error.ts';

const BUILD_HINT = 'prepare it with `npm run build -w @tandem/demo` (or `npm run prepare-data -w @tandem/demo`)';

/** The URL of a file in data/. */
export function dataUrl(file: string): URL {
  return new URL(`data/${file}`, document.baseURI);
}

async function fetchOk(file: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(dataUrl(file));
  } catch (error) {
    throw new DemoDataError(file, `could not be fetched (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  if (response.status === 404) throw new DemoDataError(file, `not found: ${BUILD_HINT}`);
  if (!response.ok) throw new DemoDataError(file, `HTTP ${response.status}`);
  return response;
}

/** A data file parsed as JSON (unchecked: callers validate it). */
export async function fetchJson(file: string): Promise<unknown> {
  const response = await fetchOk(file);
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch (error) {
    throw new DemoDataError(file, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

/** A data file's bytes, checked against the size the manifest gives when it gives one. */
export async function fetchBytes(file: string, expectedBytes?: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(await (await fetchOk(file)).arrayBuffer());
  if (expectedBytes !== undefined && bytes.byteLength !== expectedBytes) {
    throw new DemoDataError(file, `is ${bytes.byteLength} bytes; the manifest says ${expectedBytes} (rebuild: ${BUILD_HINT})`);
  }
  return bytes;
}
