// Loading a kernel build's bytes: file: URLs through the host (Node's fs; fetch cannot read them), anything else over
// fetch (browsers, and bundled pages fetching the URL their bundler emitted).
import { host } from '#host';

/** The bytes of a .wasm file, or why they could not be read. */
export type LoadedBytes =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly reason: string };

/**
 * How to get a missing or mangled .wasm file where it belongs; appended to every such reason. The package ships the
 * files in dist/; a bundled page needs its bundler to emit them next to the code that fetches them.
 */
export const BUILD_HINT =
  'the @tandem/wasm package ships it in dist/ (in the Tandem repository: npm run build -w @tandem/wasm). In a bundled page the bundler must emit it: ' +
  "Vite and webpack 5 do (Vite's dev server needs optimizeDeps: { exclude: ['@tandem/wasm'] }); esbuild and others do not: " +
  'copy node_modules/@tandem/wasm/dist/*.wasm to a folder the page serves and pass createEngine({ wasm: { distUrl: new URL(<that folder>/, location.href) } })';

/** Reads a .wasm file from a file: URL (Node) or over fetch (browsers); never throws. */
export async function loadWasmBytes(url: URL): Promise<LoadedBytes> {
  try {
    const bytes = url.protocol === 'file:' ? await host.readFileUrl(url) : await fetchBytes(url);
    if (bytes === undefined) return { ok: false, reason: `${url.href} not found: ${BUILD_HINT}` };
    if (!hasWasmMagic(bytes)) return { ok: false, reason: `${url.href} is not a WebAssembly module: ${BUILD_HINT}` };
    return { ok: true, bytes };
  } catch (error) {
    return {
      ok: false,
      reason: `${url.href} could not be read (${error instanceof Error ? error.message : String(error)}): ${BUILD_HINT}`,
    };
  }
}

async function fetchBytes(url: URL): Promise<Uint8Array | undefined> {
  const response = await fetch(url);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function hasWasmMagic(bytes: Uint8Array): boolean {
  return bytes[0] === 0x00 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d;
}
