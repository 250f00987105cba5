// device_queue.cc: the worker loop, job settlement on the JS thread, and orderly shutdown (close(), garbage
// collection of the device object, or process exit through an environment cleanup hook).
#include "device_queue.h"
#include "js_error.h"

namespace tandem {

Allocation& DeviceState::Find(uint32_t id) {
  const auto it = buffers.find(id);
  if (it == buffers.end()) throw Failure("TANDEM_UNKNOWN_BUFFER", "buffer " + std::to_string(id) + " does not exist on this device");
  return it->second;
}

void DeviceState::ReleaseAll() {
  if (stream != nullptr) (void)hipStreamSynchronize(stream);
  for (auto& entry : buffers) pool.Release(entry.second.ptr, entry.second.bytes);
  buffers.clear();
  pool.Trim();
  scratch.Release();
  if (start != nullptr) (void)hipEventDestroy(start);
  if (stop != nullptr) (void)hipEventDestroy(stop);
  if (stream != nullptr) (void)hipStreamDestroy(stream);
  start = stop = nullptr;
  stream = nullptr;
}

std::shared_ptr<DeviceQueue> DeviceQueue::Create(Napi::Env env, std::unique_ptr<DeviceState> state, std::function<void(Napi::Env, bool)> onBusy) {
  std::shared_ptr<DeviceQueue> queue(new DeviceQueue(env, std::move(state), std::move(onBusy)));
  queue->Start(env, new std::shared_ptr<DeviceQueue>(queue));
  return queue;
}

DeviceQueue::DeviceQueue(Napi::Env env, std::unique_ptr<DeviceState> state, std::function<void(Napi::Env, bool)> onBusy)
    : state_(std::move(state)), onBusy_(std::move(onBusy)), env_(env) {}

void DeviceQueue::Start(Napi::Env env, std::shared_ptr<DeviceQueue>* self) {
  // The completion function holds `self` until it is finalized, after its last delivery.
  completion_ = Completion::New(
      env, "tandem_rocm_device", 0, 1, this, [](Napi::Env, std::shared_ptr<DeviceQueue>* held, DeviceQueue*) { delete held; }, self);
  completion_.Unref(env);  // an idle device does not keep the process alive
  hookRegistered_ = napi_add_env_cleanup_hook(env, &DeviceQueue::CleanupHook, this) == napi_ok;
  worker_ = std::thread([this] { Loop(); });
}

DeviceQueue::~DeviceQueue() { Shutdown(); }

void DeviceQueue::Push(Napi::Env env, std::unique_ptr<Job> job) {
  if (closed_) throw Napi::Error::New(env, "the device was closed");
  if (pending_++ == 0) {
    completion_.Ref(env);
    if (onBusy_) onBusy_(env, true);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void DeviceQueue::Loop() {
  (void)hipSetDevice(state_->index);
  for (;;) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) break;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    Execute(*job);
    Job* raw = job.release();
    if (completion_.BlockingCall(raw) != napi_ok) {
      raw->Abandon();
      delete raw;
    }
  }
  state_->ReleaseAll();
  completion_.Release();
}

void DeviceQueue::Execute(Job& job) {
  std::lock_guard<std::mutex> lock(execute_);
  (void)hipGetLastError();  // a recoverable error of an earlier job must not be blamed on this one
  try {
    job.Execute(*state_);
  } catch (const Failure& f) {
    job.failure = f;
  } catch (const std::exception& e) {
    job.failure = Failure("TANDEM_INTERNAL", e.what());
  }
}

void DeviceQueue::RunInlineOrPush(Napi::Env env, std::unique_ptr<Job> job) {
  if (closed_) throw Napi::Error::New(env, "the device was closed");
  // pending_ counts jobs pushed and not yet settled here; at 0 the worker has finished every one and waits.
  if (pending_ != 0) {
    Push(env, std::move(job));
    return;
  }
  (void)hipSetDevice(state_->index);  // the current device is per thread (the worker set its own once, in Loop)
  Execute(*job);
  Napi::HandleScope scope(env);
  Deliver(env, *job);
}

void DeviceQueue::CallJs(Napi::Env env, Napi::Function, DeviceQueue* self, Job* job) {
  if (env == nullptr || self == nullptr) {
    job->Abandon();
    delete job;
    return;
  }
  self->Settle(env, job);
}

void DeviceQueue::Deliver(Napi::Env env, Job& job) {
  if (job.failure) {
    job.Failed(*this);
    if (job.deferred) job.deferred->Reject(ToJsError(env, *job.failure).Value());
  } else if (job.deferred) {
    job.deferred->Resolve(job.Result(env));
  }
}

void DeviceQueue::Settle(Napi::Env env, Job* job) {
  std::unique_ptr<Job> owned(job);
  Napi::HandleScope scope(env);
  Deliver(env, *job);
  owned.reset();
  if (--pending_ == 0) {
    if (!closed_) completion_.Unref(env);  // once closed, the function is released and must not be touched
    if (onBusy_) onBusy_(env, false);
  }
}

void DeviceQueue::Shutdown() {
  if (closed_) return;
  closed_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (worker_.joinable()) worker_.join();
  if (hookRegistered_) {
    napi_remove_env_cleanup_hook(env_, &DeviceQueue::CleanupHook, this);
    hookRegistered_ = false;
  }
}

void DeviceQueue::CleanupHook(void* self) {
  DeviceQueue* queue = static_cast<DeviceQueue*>(self);
  queue->hookRegistered_ = false;  // Node removes a hook once it has run
  queue->Shutdown();
}

uint32_t DeviceQueue::NewId(size_t bytes) {
  const uint32_t id = nextId_++;
  sizes_[id] = bytes;
  return id;
}

const size_t* DeviceQueue::SizeOf(uint32_t id) const {
  const auto it = sizes_.find(id);
  return it == sizes_.end() ? nullptr : &it->second;
}

void DeviceQueue::Forget(uint32_t id) { sizes_.erase(id); }

}  // namespace tandem
