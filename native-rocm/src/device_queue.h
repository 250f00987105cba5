// device_queue.h: one worker thread per opened device runs every job (upload, download, free, run) in the order
// JavaScript queued them, on the device's one stream, so the JS thread never waits for the GPU. Finished jobs
// go back to the JS thread through a thread-safe function, which settles their promises.
// Short jobs can instead run inline, on the JS thread, when nothing is queued or running: the two thread hand-offs
// (a condition variable to wake the worker, the thread-safe function to wake the JS loop) cost more than a small
// kernel (docs/decisions.md, issue 29; packages/rocm/README.md).
#pragma once
#include <napi.h>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include "../kernels/kernels.h"
#include "failure.h"
#include "host_pool.h"
#include "memory_pool.h"

namespace tandem {

class DeviceQueue;

/** A device buffer the worker knows by id. */
struct Allocation {
  /** Device pointer (null for 0 bytes). */
  void* ptr;
  /** Bytes requested. */
  size_t bytes;
};

/** What the worker thread owns: the device's stream, timing events, memory and buffers. */
struct DeviceState {
  /** Runtime device index. */
  int index = 0;
  /** Threads per warp of the device. */
  int warpSize = 32;
  /** Multiprocessors (compute units). */
  int multiProcessors = 1;
  /** The device's one stream. */
  hipStream_t stream = nullptr;
  /** Event recorded before an op's kernels. */
  hipEvent_t start = nullptr;
  /** Event recorded after them. */
  hipEvent_t stop = nullptr;
  /** Temporary memory of multi-pass ops. */
  Scratch scratch;
  /** Buffer memory. */
  MemoryPool pool;
  /** Pinned host memory that downloads land in; shared with the arrays that still hold blocks of it. */
  std::shared_ptr<HostPool> host = std::make_shared<HostPool>();
  /** Live buffers by id. */
  std::unordered_map<uint32_t, Allocation> buffers;

  /** The launch context for kernels. */
  LaunchContext Context() { return LaunchContext{stream, warpSize, multiProcessors, &scratch}; }
  /** The buffer `id`; throws TANDEM_UNKNOWN_BUFFER. */
  Allocation& Find(uint32_t id);
  /** Frees every buffer, the scratch and the cache, then the events and the stream. */
  void ReleaseAll();
};

/** One unit of work: Execute on the worker thread, then settled on the JS thread. */
class Job {
 public:
  virtual ~Job() = default;
  /** Worker thread; throws Failure. */
  virtual void Execute(DeviceState& state) = 0;
  /** JS thread, after success: the promise's value. */
  virtual Napi::Value Result(Napi::Env env) { return env.Undefined(); }
  /** JS thread, after failure: undo the queue's bookkeeping (ids handed out at queue time). */
  virtual void Failed(DeviceQueue&) {}
  /** The environment is gone: let go of JavaScript references without calling into it. */
  virtual void Abandon() {}

  /** Settled with the result or the failure; absent for fire-and-forget jobs (free). */
  std::optional<Napi::Promise::Deferred> deferred;
  /** Set by the worker when Execute threw. */
  std::optional<Failure> failure;
};

/**
 * The worker thread of one device, its job queue, and the JS-side registry of buffer ids and sizes.
 * Shared by the JS device object and the completion function, which may deliver results after the device object
 * is gone: the queue lives until both have let go.
 */
class DeviceQueue {
 public:
  /** Starts the worker; `onBusy(env, busy)` runs on the JS thread when jobs start or stop being pending. */
  static std::shared_ptr<DeviceQueue> Create(Napi::Env env, std::unique_ptr<DeviceState> state, std::function<void(Napi::Env, bool)> onBusy);
  ~DeviceQueue();
  DeviceQueue(const DeviceQueue&) = delete;
  DeviceQueue& operator=(const DeviceQueue&) = delete;

  /** JS thread: queues a job. Throws a JS error once the queue is closed. */
  void Push(Napi::Env env, std::unique_ptr<Job> job);
  /**
   * JS thread: runs `job` here and now and settles it, when no job is queued or running (so the order of work is
   * kept); otherwise queues it as Push does. The JS thread then waits for the device: for short jobs only.
   */
  void RunInlineOrPush(Napi::Env env, std::unique_ptr<Job> job);
  /** JS thread: runs the queued jobs, then frees the device's memory and stops the worker. Idempotent. */
  void Shutdown();
  /** Whether Shutdown has begun. */
  bool closed() const { return closed_; }

  /** JS thread: a fresh buffer id for `bytes`. */
  uint32_t NewId(size_t bytes);
  /** JS thread: the size of buffer `id`, or null when unknown. */
  const size_t* SizeOf(uint32_t id) const;
  /** JS thread: forgets buffer `id`. */
  void Forget(uint32_t id);
  /** JS thread: stop calling onBusy (its owner is being destroyed). */
  void Detach() { onBusy_ = nullptr; }

 private:
  DeviceQueue(Napi::Env env, std::unique_ptr<DeviceState> state, std::function<void(Napi::Env, bool)> onBusy);
  void Start(Napi::Env env, std::shared_ptr<DeviceQueue>* self);
  static void CallJs(Napi::Env env, Napi::Function callback, DeviceQueue* self, Job* job);
  using Completion = Napi::TypedThreadSafeFunction<DeviceQueue, Job, &DeviceQueue::CallJs>;
  static void CleanupHook(void* self);
  /** Executes `job` on the calling thread under execute_, recording a failure on the job. */
  void Execute(Job& job);
  /** JS thread: resolves or rejects the job's promise. */
  void Deliver(Napi::Env env, Job& job);
  void Settle(Napi::Env env, Job* job);
  void Loop();

  std::unique_ptr<DeviceState> state_;  // under execute_: the worker, or the JS thread inline while nothing is pending
  std::function<void(Napi::Env, bool)> onBusy_;
  Completion completion_;
  napi_env env_;
  std::thread worker_;
  std::mutex mutex_;
  std::mutex execute_;  // held while a job runs, on the worker or inline: the device state is one thread's at a time
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Job>> jobs_;
  bool stopping_ = false;  // guarded by mutex_
  bool closed_ = false;
  bool hookRegistered_ = false;
  size_t pending_ = 0;     // JS thread
  uint32_t nextId_ = 1;    // JS thread
  std::unordered_map<uint32_t, size_t> sizes_;  // JS thread
};

}  // namespace tandem
