// addon.cc: the module tandem_rocm.node.
//   platform: 'amd' | 'nvidia'        which runtime it was built for
//   devices(): { count, error?, message?, runtimeVersion, driverVersion, devices: DeviceInfo[] }
//              never throws: with no device, count is 0 and error names the runtime's answer (hipErrorNoDevice)
//   kernels(): KernelInfo[]           native kernels run() accepts: { name, params: { <name>: 'dim' | 'number' | 'flag' [+ '?'] } }
//   limits: { ... }                    the kernels' limits (kernels.h), for supportsOp to refuse what a launch would
//   Device                            see device.h
#include <napi.h>
#include "device.h"
#include "failure.h"
#include "kernel_registry.h"

namespace tandem {
namespace {

int Attribute(hipDeviceAttribute_t attribute, int device) {
  int value = 0;
  if (hipDeviceGetAttribute(&value, attribute, device) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return value;
}

Napi::Object DeviceInfo(Napi::Env env, int index, const hipDeviceProp_t& prop) {
  Napi::Object d = Napi::Object::New(env);
  d.Set("index", index);
  d.Set("name", std::string(prop.name));
  d.Set("arch", tandem_arch_name(prop));
  d.Set("totalMemory", static_cast<double>(prop.totalGlobalMem));
  d.Set("multiProcessors", prop.multiProcessorCount);
  d.Set("warpSize", prop.warpSize);
  d.Set("sharedMemoryPerBlock", static_cast<double>(prop.sharedMemPerBlock));
  d.Set("computeMajor", prop.major);
  d.Set("computeMinor", prop.minor);
  d.Set("clockKHz", Attribute(hipDeviceAttributeClockRate, index));
  d.Set("memoryClockKHz", Attribute(hipDeviceAttributeMemoryClockRate, index));
  d.Set("memoryBusWidthBits", Attribute(hipDeviceAttributeMemoryBusWidth, index));
  return d;
}

Napi::Value Devices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  int runtimeVersion = 0;
  int driverVersion = 0;
  if (hipRuntimeGetVersion(&runtimeVersion) != hipSuccess) (void)hipGetLastError();
  if (hipDriverGetVersion(&driverVersion) != hipSuccess) (void)hipGetLastError();
  result.Set("runtimeVersion", runtimeVersion);
  result.Set("driverVersion", driverVersion);
  int count = 0;
  const hipError_t err = hipGetDeviceCount(&count);
  Napi::Array list = Napi::Array::New(env);
  if (err != hipSuccess) {
    (void)hipGetLastError();
    result.Set("count", 0);
    result.Set("error", std::string(hipGetErrorName(err)));
    result.Set("message", std::string(hipGetErrorString(err)));
    result.Set("devices", list);
    return result;
  }
  uint32_t listed = 0;
  for (int i = 0; i < count; ++i) {
    hipDeviceProp_t prop;
    const hipError_t perr = hipGetDeviceProperties(&prop, i);
    if (perr != hipSuccess) {
      (void)hipGetLastError();
      continue;
    }
    list.Set(listed++, DeviceInfo(env, i, prop));
  }
  result.Set("count", count);
  result.Set("devices", list);
  return result;
}

Napi::Value Kernels(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::vector<OpDef>& ops = AllOps();
  Napi::Array list = Napi::Array::New(env, ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    Napi::Object kernel = Napi::Object::New(env);
    kernel.Set("name", std::string(ops[i].name));
    Napi::Object params = Napi::Object::New(env);
    for (const ParamSignature& p : ops[i].params) params.Set(p.name, p.kind);
    kernel.Set("params", params);
    list.Set(static_cast<uint32_t>(i), kernel);
  }
  return list;
}

Napi::Object Limits(Napi::Env env) {
  Napi::Object limits = Napi::Object::New(env);
  limits.Set("topKMax", kTopKMax);
  limits.Set("attentionDimsPerLane", kAttentionMaxDimsPerLane);
  limits.Set("matmulMaxColumnsF32", static_cast<double>(kGridMaxY) * kMatmulTileColumns);
  limits.Set("matmulMaxColumnsF16", static_cast<double>(kGridMaxY) * kMatmulF16TileColumns);
  limits.Set("cosineWarpQueries", kCosineWarpQueryLimit);
  limits.Set("quantizedDirectRows", kQuantizedDirectMaxRows);
  return limits;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("platform", Napi::String::New(env, TANDEM_HIP_PLATFORM));
  exports.Set("devices", Napi::Function::New<Devices>(env, "devices"));
  exports.Set("kernels", Napi::Function::New<Kernels>(env, "kernels"));
  exports.Set("limits", Limits(env));
  Device::Init(env, exports);
  return exports;
}

}  // namespace
}  // namespace tandem

static Napi::Object InitModule(Napi::Env env, Napi::Object exports) { return tandem::Init(env, exports); }

NODE_API_MODULE(tandem_rocm, InitModule)
