// The few members of the WebAssembly JS API this package uses. Typed here because the project compiles without
// the DOM lib (and @types/node declares no WebAssembly value); read off globalThis behind a runtime check.

/** A WebAssembly.Memory. */
export interface WasmMemory {
  /** The current bytes; replaced (and, for non-shared memory, the old one detached) when the memory grows. */
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  /** Adds `deltaPages` pages of 64 KiB; returns the old size in pages; throws RangeError when refused. */
  grow(deltaPages: number): number;
}

/** Arguments of `new WebAssembly.Memory`. */
export interface WasmMemoryDescriptor {
  /** Initial size, pages. */
  readonly initial: number;
  /** Largest size, pages (required for shared memory). */
  readonly maximum?: number;
  /** SharedArrayBuffer-backed, for threads. */
  readonly shared?: boolean;
}

/** A compiled WebAssembly.Module (opaque; can be posted to workers). */
export type WasmModule = object;

/** A WebAssembly.Instance. */
export interface WasmInstance {
  /** The module's exports. */
  readonly exports: object;
}

/** The WebAssembly namespace, as far as this package uses it. */
export interface WasmApi {
  /** WebAssembly.Memory constructor. */
  readonly Memory: new (
    descriptor: WasmMemoryDescriptor,
  ) => WasmMemory;
  /** Whether the bytes are a valid module for this engine (used for feature detection). */
  validate(bytes: Uint8Array): boolean;
  /** Compiles bytes to a module. */
  compile(bytes: Uint8Array): Promise<WasmModule>;
  /** Instantiates a compiled module. */
  instantiate(module: WasmModule, imports: Record<string, Record<string, unknown>>): Promise<WasmInstance>;
}

function isWasmApi(value: unknown): value is WasmApi {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  return ['Memory', 'validate', 'compile', 'instantiate'].every((key) => typeof Reflect.get(value, key) === 'function');
}

/** The host's WebAssembly namespace, or undefined where there is none. */
export function webAssembly(): WasmApi | undefined {
  const api: unknown = Reflect.get(globalThis, 'WebAssembly');
  return isWasmApi(api) ? api : undefined;
}
