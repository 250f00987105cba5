// device.h: `new Device(index)` in JavaScript: one opened GPU with its worker queue. Methods:
//   upload(Uint8Array, inline?): Promise<id>  download(id, inline?): Promise<Uint8Array>
//   free(id): boolean                         run(kernel, inputIds, outputBytes, params, inline?): Promise<{outputs, kernelMs}>
//   (inline: run on the calling thread when nothing is queued, for short work; the promise is then settled on return)
//   time(kernel, inputSets, outputBytes, params, launches): Promise<{kernelMs}>  (back-to-back launches, benchmarks)
//   prepareSequence(spec): handle                (a checked run of kernels: sequence.h)
//   runSequence(handle, inputIds, timeSteps, inline?): Promise<{outputs, kernelMs, stepMs}>  (all its kernels, one job)
//   memoryInfo(): { free, total, pinnedHost }  close(): void
//   pinnedBlockFree(bytes): boolean            (false when a download of that size would miss pinned memory now)
#pragma once
#include <napi.h>
#include <memory>
#include "device_queue.h"

namespace tandem {

/** The JavaScript Device class. */
class Device : public Napi::ObjectWrap<Device> {
 public:
  /** Registers the class on `exports`. */
  static void Init(Napi::Env env, Napi::Object exports);
  /** Opens device `index`: sets it current, creates its stream and events, starts its worker. */
  explicit Device(const Napi::CallbackInfo& info);
  ~Device() override;

 private:
  Napi::Value Upload(const Napi::CallbackInfo& info);
  Napi::Value Download(const Napi::CallbackInfo& info);
  Napi::Value Free(const Napi::CallbackInfo& info);
  Napi::Value Run(const Napi::CallbackInfo& info);
  Napi::Value Time(const Napi::CallbackInfo& info);
  Napi::Value PrepareSequence(const Napi::CallbackInfo& info);
  Napi::Value RunSequence(const Napi::CallbackInfo& info);
  Napi::Value MemoryInfo(const Napi::CallbackInfo& info);
  Napi::Value PinnedBlockFree(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value Index(const Napi::CallbackInfo& info);
  DeviceQueue& Open(Napi::Env env);

  int index_ = 0;
  std::shared_ptr<DeviceQueue> queue_;
  std::shared_ptr<HostPool> host_;  // the worker's pinned download memory, for memoryInfo()
};

}  // namespace tandem
