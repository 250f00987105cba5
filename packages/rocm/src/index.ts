// @tandem/rocm: Tandem's HIP backend (AMD GPUs via hipcc; NVIDIA GPUs via nvcc and native-rocm/include/tandem_hip.h).
export { RocmBackend, type RocmBackendOptions, type RocmDeviceDescription } from './rocm-backend.ts';
export { DEFAULT_INLINE_LIMITS, type InlineLimits } from './inline-limits.ts';
export { ROCM_CAPABILITIES } from './capabilities.ts';
export { ROCM_KERNELS, type RocmKernelTable } from './kernel-table.ts';
export type { DeviceLimits, RocmKernel } from './kernel-support.ts';
export { HipError, hipErrorName, toBackendError } from './hip-errors.ts';
export {
  addonCandidates,
  ADDON_VARIANTS,
  BUILD_COMMAND,
  DEFAULT_BUILD_DIR,
  loadAddon,
  variantPath,
  type AddonLoad,
} from './load-addon.ts';
export type {
  AddonPlatform,
  NativeDevice,
  NativeDeviceInfo,
  NativeDeviceList,
  NativeKernelInfo,
  NativeLimits,
  NativeParamKind,
  NativeRunResult,
  NativeSequenceHandle,
  NativeSequenceResult,
  NativeSequenceSpec,
  NativeSequenceStep,
  RocmAddon,
} from './addon-api.ts';
export type { QuantizedActivations } from './kernel-support.ts';
