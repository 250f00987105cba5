// jobs.cc: what each job does on the worker thread, and what it hands back to JavaScript.
#include "jobs.h"
#include <cstdlib>
#include <cstring>

namespace tandem {

UploadJob::UploadJob(Napi::Env env, uint32_t id, Napi::Uint8Array data)
    : id_(id), keep_(Napi::Persistent(data)), data_(data.Data()), bytes_(data.ByteLength()) {
  deferred.emplace(Napi::Promise::Deferred::New(env));
}

void UploadJob::Execute(DeviceState& state) {
  void* ptr = state.pool.Allocate(bytes_, "upload of " + std::to_string(bytes_) + " bytes");
  if (bytes_ > 0) {
    hipError_t err = hipMemcpyAsync(ptr, data_, bytes_, hipMemcpyHostToDevice, state.stream);
    if (err == hipSuccess) err = hipStreamSynchronize(state.stream);
    if (err != hipSuccess) {
      state.pool.Release(ptr, bytes_);
      check(err, "upload copy");
    }
  }
  state.buffers[id_] = Allocation{ptr, bytes_};
}

Napi::Value UploadJob::Result(Napi::Env env) { return Napi::Number::New(env, id_); }

void UploadJob::Failed(DeviceQueue& queue) { queue.Forget(id_); }

void UploadJob::Abandon() { keep_.SuppressDestruct(); }

DownloadJob::DownloadJob(Napi::Env env, uint32_t id, size_t bytes) : id_(id), bytes_(bytes) {
  if (bytes < HostPool::kMinBytes) {
    Napi::Uint8Array target = Napi::Uint8Array::New(env, bytes);
    data_ = target.Data();
    target_ = Napi::Persistent(target);
  }
  deferred.emplace(Napi::Promise::Deferred::New(env));
}

DownloadJob::~DownloadJob() {
  if (host_.data != nullptr) host_.Release();
}

void DownloadJob::Execute(DeviceState& state) {
  const Allocation& a = state.Find(id_);
  if (bytes_ == 0) return;
  void* target = data_;
  if (target == nullptr) {
    host_.bytes = bytes_;
    host_.data = state.host->Acquire(bytes_, &host_.blockClass);
    if (host_.data != nullptr) {
      host_.pool = state.host;
    } else {
      host_.data = std::malloc(bytes_);
      if (host_.data == nullptr) throw Failure("TANDEM_HOST_OUT_OF_MEMORY", "download of " + std::to_string(bytes_) + " bytes: no host memory", static_cast<double>(bytes_));
    }
    target = host_.data;
  }
  check(hipMemcpyAsync(target, a.ptr, bytes_, hipMemcpyDeviceToHost, state.stream), "download copy");
  check(hipStreamSynchronize(state.stream), "download copy");
}

/** napi finalizer of an external ArrayBuffer over a HostBlock: gives the memory back. */
static void ReleaseHostBlock(napi_env, void*, void* hint) {
  HostBlock* block = static_cast<HostBlock*>(hint);
  block->Release();
  delete block;
}

Napi::Value DownloadJob::Result(Napi::Env env) {
  if (host_.data == nullptr) return target_.Value();
  auto* block = new HostBlock(std::move(host_));
  host_ = HostBlock{};
  napi_value buffer = nullptr;
  if (napi_create_external_arraybuffer(env, block->data, block->bytes, ReleaseHostBlock, block, &buffer) == napi_ok) {
    return Napi::Uint8Array::New(env, block->bytes, Napi::ArrayBuffer(env, buffer), 0);
  }
  // Runtimes that refuse external memory (a V8 sandbox): copy into an array of their own.
  if (env.IsExceptionPending()) (void)env.GetAndClearPendingException();
  Napi::Uint8Array copy = Napi::Uint8Array::New(env, block->bytes);
  std::memcpy(copy.Data(), block->data, block->bytes);
  block->Release();
  delete block;
  return copy;
}

void DownloadJob::Abandon() {
  if (!target_.IsEmpty()) target_.SuppressDestruct();
}

void FreeJob::Execute(DeviceState& state) {
  const auto it = state.buffers.find(id_);
  if (it == state.buffers.end()) return;
  state.pool.Release(it->second.ptr, it->second.bytes);
  state.buffers.erase(it);
}

RunJob::RunJob(Napi::Env env, const OpDef* def, Params params, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs, std::vector<size_t> outputBytes)
    : def_(def), params_(std::move(params)), inputs_(std::move(inputs)), outputs_(std::move(outputs)), outputBytes_(std::move(outputBytes)) {
  deferred.emplace(Napi::Promise::Deferred::New(env));
}

void RunJob::Execute(DeviceState& state) {
  LaunchContext ctx = state.Context();
  OpCall call{{}, {}, &params_, &ctx};
  for (uint32_t id : inputs_) call.inputs.push_back(state.Find(id).ptr);
  try {
    for (size_t i = 0; i < outputs_.size(); ++i) {
      call.outputs.push_back(state.pool.Allocate(outputBytes_[i], std::string(def_->name) + " output " + std::to_string(i)));
    }
    check(hipEventRecord(state.start, state.stream), "hipEventRecord");
    check(def_->launch(call), def_->name);
    check(hipEventRecord(state.stop, state.stream), "hipEventRecord");
    check(hipEventSynchronize(state.stop), std::string(def_->name) + " (kernel execution)");
    float ms = 0;
    check(hipEventElapsedTime(&ms, state.start, state.stop), "hipEventElapsedTime");
    kernelMs_ = ms;
  } catch (...) {
    for (size_t i = 0; i < call.outputs.size(); ++i) state.pool.Release(call.outputs[i], outputBytes_[i]);
    throw;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) state.buffers[outputs_[i]] = Allocation{call.outputs[i], outputBytes_[i]};
}

Napi::Value RunJob::Result(Napi::Env env) {
  Napi::Object result = Napi::Object::New(env);
  Napi::Array ids = Napi::Array::New(env, outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) ids.Set(static_cast<uint32_t>(i), Napi::Number::New(env, outputs_[i]));
  result.Set("outputs", ids);
  result.Set("kernelMs", Napi::Number::New(env, kernelMs_));
  return result;
}

void RunJob::Failed(DeviceQueue& queue) {
  for (uint32_t id : outputs_) queue.Forget(id);
}

TimeJob::TimeJob(Napi::Env env, const OpDef* def, Params params, std::vector<std::vector<uint32_t>> inputSets, std::vector<size_t> outputBytes, int launches)
    : def_(def), params_(std::move(params)), inputSets_(std::move(inputSets)), outputBytes_(std::move(outputBytes)), launches_(launches) {
  deferred.emplace(Napi::Promise::Deferred::New(env));
}

void TimeJob::Execute(DeviceState& state) {
  LaunchContext ctx = state.Context();
  std::vector<std::vector<const void*>> sets;
  for (const auto& ids : inputSets_) {
    std::vector<const void*> ptrs;
    for (uint32_t id : ids) ptrs.push_back(state.Find(id).ptr);
    sets.push_back(std::move(ptrs));
  }
  OpCall call{{}, {}, &params_, &ctx};
  try {
    for (size_t i = 0; i < outputBytes_.size(); ++i) call.outputs.push_back(state.pool.Allocate(outputBytes_[i], std::string(def_->name) + " output " + std::to_string(i)));
    // One untimed launch first: the start event is then recorded behind a running kernel, and the host queues
    // the timed launches while it runs, so no launch gap of the host is inside the events.
    call.inputs = sets.back();
    check(def_->launch(call), def_->name);
    check(hipEventRecord(state.start, state.stream), "hipEventRecord");
    for (int i = 0; i < launches_; ++i) {
      call.inputs = sets[static_cast<size_t>(i) % sets.size()];
      check(def_->launch(call), def_->name);
    }
    check(hipEventRecord(state.stop, state.stream), "hipEventRecord");
    check(hipEventSynchronize(state.stop), std::string(def_->name) + " (kernel execution)");
    float ms = 0;
    check(hipEventElapsedTime(&ms, state.start, state.stop), "hipEventElapsedTime");
    kernelMs_ = static_cast<double>(ms) / launches_;
  } catch (...) {
    for (size_t i = 0; i < call.outputs.size(); ++i) state.pool.Release(call.outputs[i], outputBytes_[i]);
    throw;
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) state.pool.Release(call.outputs[i], outputBytes_[i]);
}

Napi::Value TimeJob::Result(Napi::Env env) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("kernelMs", Napi::Number::New(env, kernelMs_));
  return result;
}

}  // namespace tandem
