export { WasmBackend, WASM_BACKEND_NAME, type WasmBackendOptions } from './wasm-backend.ts';
export { WASM_CAPABILITIES } from './capabilities.ts';
export { FreeListAllocator, BLOCK_ALIGN, type AllocatorStats, type GrowableRange } from './allocator.ts';
export { WASM_BUILDS, supportsRelaxedSimd, supportsSharedMemory, supportsSimd, type WasmBuild } from './wasm-builds.ts';
export { BUILD_HINT } from './load-bytes.ts';
export type { SimdChoice } from './instantiate.ts';
