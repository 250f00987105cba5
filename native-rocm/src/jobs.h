// jobs.h: the kinds of device work: upload, download, free, run, and time (back-to-back launches for benchmarks).
#pragma once
#include <napi.h>
#include <string>
#include <vector>
#include "device_queue.h"
#include "host_pool.h"
#include "kernel_registry.h"
#include "params.h"

namespace tandem {

/** Allocates a buffer and copies host bytes into it; resolves with the buffer id. */
class UploadJob : public Job {
 public:
  UploadJob(Napi::Env env, uint32_t id, Napi::Uint8Array data);
  void Execute(DeviceState& state) override;
  Napi::Value Result(Napi::Env env) override;
  void Failed(DeviceQueue& queue) override;
  void Abandon() override;

 private:
  uint32_t id_;
  Napi::Reference<Napi::Uint8Array> keep_;  // the source stays alive until the copy is done
  const uint8_t* data_;
  size_t bytes_;
};

/**
 * Copies a buffer to the host; resolves with a Uint8Array of it. From HostPool::kMinBytes up the copy lands in a
 * pinned block of the device's HostPool (pageable memory when the pool is full) that the array then owns;
 * smaller ones land in a JavaScript-allocated array directly.
 */
class DownloadJob : public Job {
 public:
  DownloadJob(Napi::Env env, uint32_t id, size_t bytes);
  ~DownloadJob() override;
  void Execute(DeviceState& state) override;
  Napi::Value Result(Napi::Env env) override;
  void Abandon() override;

 private:
  uint32_t id_;
  size_t bytes_;
  Napi::Reference<Napi::Uint8Array> target_;  // small downloads only
  uint8_t* data_ = nullptr;                   // small downloads only
  HostBlock host_;                            // large downloads, from Execute until Result hands it over
};

/** Releases a buffer (fire and forget: queued after every job that may still read it). */
class FreeJob : public Job {
 public:
  explicit FreeJob(uint32_t id) : id_(id) {}
  void Execute(DeviceState& state) override;

 private:
  uint32_t id_;
};

/** Allocates the outputs, runs one native kernel between two events; resolves with { outputs, kernelMs }. */
class RunJob : public Job {
 public:
  RunJob(Napi::Env env, const OpDef* def, Params params, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs, std::vector<size_t> outputBytes);
  void Execute(DeviceState& state) override;
  Napi::Value Result(Napi::Env env) override;
  void Failed(DeviceQueue& queue) override;

 private:
  const OpDef* def_;
  Params params_;
  std::vector<uint32_t> inputs_;
  std::vector<uint32_t> outputs_;
  std::vector<size_t> outputBytes_;
  double kernelMs_ = 0;
};

/**
 * Benchmarks: launches one native kernel `launches` times back to back between two events (after one untimed
 * launch), input set i % sets for launch i, into outputs allocated once and released after; resolves with
 * { kernelMs } per launch. Unlike run(), no launch gap of the host is in the time (the queue stays ahead of the
 * GPU while kernels take longer to run than to launch).
 */
class TimeJob : public Job {
 public:
  TimeJob(Napi::Env env, const OpDef* def, Params params, std::vector<std::vector<uint32_t>> inputSets, std::vector<size_t> outputBytes, int launches);
  void Execute(DeviceState& state) override;
  Napi::Value Result(Napi::Env env) override;

 private:
  const OpDef* def_;
  Params params_;
  std::vector<std::vector<uint32_t>> inputSets_;
  std::vector<size_t> outputBytes_;
  int launches_;
  double kernelMs_ = 0;
};

}  // namespace tandem
