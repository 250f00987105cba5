export { WasmBackend, WASM_BACKEND_NAME, type WasmBackendOptions } from './wasm-backend.ts';
export { WASM_CAPABILITIES } from './capabilities.ts';
export { FreeListAllocator, BLOCK_ALIGN, type AllocatorStats, type GrowableRange } from './allocator.ts';
export { WASM_BUILDS, supportsRelaxedSimd, supportsSharedMemory, supportsSimd, type WasmBuild } from './wasm-builds.ts';
export { BUILD_HINT } from './load-bytes.ts';
export { loadKernels, type LoadedKernels, type LoadRequest, type LoadResult, type SimdChoice } from './instantiate.ts';
export type { Kernels } from './kernel-exports.ts';
export type { WasmMemory } from './wasm-api.ts';
