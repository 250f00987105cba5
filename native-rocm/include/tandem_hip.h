// tandem_hip.h: the one vendor header. Every source of the addon writes HIP (hip* calls, <<<>>> launches);
// this header makes that compile under hipcc for AMD GPUs and under nvcc for NVIDIA GPUs.
//   hipcc -x hip (__HIP__, or __HIP_PLATFORM_AMD__ set by hand): HIP itself.
//   nvcc  (__CUDACC__):            exactly the hip* names Tandem uses, mapped onto the CUDA runtime.
// HIP's own NVIDIA layer (hip/nvidia_detail, ROCm 5.2) does not build against CUDA 13, hence this map.
// Adding a hip* call to the addon means adding its line below. (A third branch, for tests only, emulates the
// subset on the CPU: native-rocm/emulation/, `build.mjs --variant emulated`.)
#pragma once

#if defined(TANDEM_HIP_EMULATION)

#include "../emulation/tandem_hip_emulated.h"
/** The CPU emulation has no graphs: sequences launch step by step there (the type only declares SequenceGraph). */
#define TANDEM_HIP_GRAPHS 0
typedef struct EmuGraphExec* hipGraphExec_t;

#elif defined(__HIP__) || defined(__HIP_PLATFORM_AMD__)

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#include <string>

/** Which runtime the addon was built for: "amd" or "nvidia". */
#define TANDEM_HIP_PLATFORM "amd"
/** Whether the runtime captures and replays graphs of launches (sequence_graph.h). */
#define TANDEM_HIP_GRAPHS 1

/** Butterfly shuffle across the whole warp (wavefront) of the calling lane. */
#define tandem_shfl_xor(value, lane_mask) __shfl_xor((value), (lane_mask))

/** Orders the warp's (wavefront's) shared-memory writes before its lanes read each other's. */
__device__ inline void tandem_syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

/** Device architecture name (gfx90a, ...) from a device's properties. */
#define tandem_arch_name(prop) (std::string((prop).gcnArchName))

/** binary16 bits -> float in one hardware conversion. */
#define tandem_half_bits_to_float(bits) __half2float(__ushort_as_half(bits))

/** c + the dot product of the 4 signed bytes of a and b (v_dot4_i32_i8 where the target has it). */
__device__ inline int tandem_dp4a(int a, int b, int c) {
#if defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx1011__) || \
    defined(__gfx1012__) || defined(__gfx1030__) || defined(__gfx1031__) || defined(__gfx1032__) || defined(__gfx1034__)
  return __builtin_amdgcn_sdot4(a, b, c, false);
#else
  for (int i = 0; i < 32; i += 8) c += static_cast<signed char>(a >> i) * static_cast<signed char>(b >> i);
  return c;
#endif
}

#elif defined(__CUDACC__)

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <string>

#define TANDEM_HIP_PLATFORM "nvidia"
#define TANDEM_HIP_GRAPHS 1

// Types and constants.
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;  // fields read: name, totalGlobalMem, multiProcessorCount, warpSize,
                                         // sharedMemPerBlock, major, minor
typedef cudaDeviceAttr hipDeviceAttribute_t;
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipDeviceAttributeClockRate cudaDevAttrClockRate
#define hipDeviceAttributeMemoryClockRate cudaDevAttrMemoryClockRate
#define hipDeviceAttributeMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth

// Errors.
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError

// Devices.
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipSetDevice cudaSetDevice
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMemGetInfo cudaMemGetInfo
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDriverGetVersion cudaDriverGetVersion

// Memory.
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipHostMallocDefault cudaHostAllocDefault

// Streams and events.
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime

// Graphs (captured from a stream, instantiated once, launched whole).
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
#define hipStreamCaptureModeRelaxed cudaStreamCaptureModeRelaxed
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphExecDestroy cudaGraphExecDestroy

#define tandem_shfl_xor(value, lane_mask) __shfl_xor_sync(0xffffffffu, (value), (lane_mask))
#define tandem_syncwarp() __syncwarp()
#define tandem_half_bits_to_float(bits) __half2float(__ushort_as_half(bits))
/** c + the dot product of the 4 signed bytes of a and b (sm_61 and newer). */
#define tandem_dp4a(a, b, c) __dp4a((a), (b), (c))

/** NVIDIA devices have no gfx name: report the SM version, e.g. sm_90. */
#define tandem_arch_name(prop) ("sm_" + std::to_string((prop).major) + std::to_string((prop).minor))

#else
#error "tandem_hip.h: compile with hipcc (HIP_PLATFORM=amd) or nvcc (-x cu)"
#endif
