// WebGPU flag values (fixed by the spec), so the backend does not depend on the GPUBufferUsage / GPUMapMode
// globals, which Node only has after `Object.assign(globalThis, globals)`.

/** GPUBufferUsage bits. */
export const BufferUsage = {
  MAP_READ: 0x0001,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  QUERY_RESOLVE: 0x0200,
} as const;

/** GPUMapMode.READ. */
export const MAP_READ_MODE = 0x0001;

/** GPUShaderStage.COMPUTE. */
export const COMPUTE_STAGE = 0x4;

/** Usage of every tensor buffer: bound as storage, written by uploads, read by downloads and copies. */
export const TENSOR_USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** Usage of uniform parameter blocks. */
export const UNIFORM_USAGE = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/** Usage of readback staging buffers. */
export const READBACK_USAGE = BufferUsage.MAP_READ | BufferUsage.COPY_DST;
