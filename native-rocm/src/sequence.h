// sequence.h: a recorded run of kernels (graph replay, issue 28) launched by one call from JavaScript.
// prepareSequence(spec) checks every step once (kernel, parameters, which values it reads, buffer sizes) and keeps
// the plan; each runSequence(plan, inputIds) is then one job: the steps' kernels are launched back to back on the
// device's stream, intermediates go back to the pool after their last reader, and only the kept values come back as
// buffers. An event before each step gives each step's kernel time. Values 0..inputs-1 are the run's input buffers;
// each step's outputs follow in order (as in packages/core/src/sequence.ts).
#pragma once
#include <napi.h>
#include <memory>
#include <vector>
#include "device_queue.h"
#include "kernel_registry.h"
#include "params.h"

namespace tandem {

/** One checked step: its kernel, parameters, the values it reads, what it writes and what it frees after. */
struct SequenceStep {
  /** The native kernel. */
  const OpDef* def;
  /** Its parameters (checked against the kernel's field table when prepared). */
  Params params;
  /** Values read, in the kernel's input order. */
  std::vector<uint32_t> inputs;
  /** Index of its first output value. */
  uint32_t firstOutput;
  /** Bytes of each output. */
  std::vector<size_t> outputBytes;
  /** Values no later step reads (freed after this step unless inputs or kept). */
  std::vector<uint32_t> release;
};

/** A prepared sequence; shared by the JavaScript handle and the jobs that run it. */
class SequencePlan {
 public:
  /** Checks `spec` ({ inputBytes, steps: [{ kernel, inputs, outputBytes, params, release }], keep }); throws Failure. */
  static std::shared_ptr<SequencePlan> Parse(Napi::Env env, const Napi::Value& spec);
  ~SequencePlan();

  /** Bytes each input buffer must have at least. */
  std::vector<size_t> inputBytes;
  /** The steps in order. */
  std::vector<SequenceStep> steps;
  /** Values handed back as buffers, in order (step outputs only). */
  std::vector<uint32_t> keep;
  /** Bytes of every value. */
  std::vector<size_t> valueBytes;
  /** The device queue that prepared it (only that device runs it). */
  const DeviceQueue* owner = nullptr;
  /** steps + 1 timing events, made on the first run (worker thread or inline, under the queue's execute lock). */
  std::vector<hipEvent_t> events;
};

/**
 * One run of a plan: resolves with { outputs: kept buffer ids, kernelMs, stepMs: number[] }. With `timeSteps` an event
 * before each step times it (stepMs per step); without, only the whole run is timed and stepMs is empty.
 */
class SequenceJob : public Job {
 public:
  SequenceJob(Napi::Env env, std::shared_ptr<SequencePlan> plan, std::vector<uint32_t> inputs, std::vector<uint32_t> keptIds, bool timeSteps);
  void Execute(DeviceState& state) override;
  Napi::Value Result(Napi::Env env) override;
  void Failed(DeviceQueue& queue) override;

 private:
  /** Launches every step; `values` gets each value's pointer, `made` marks those this run allocated and holds. */
  void Launch(DeviceState& state, std::vector<void*>& values, std::vector<bool>& made);

  std::shared_ptr<SequencePlan> plan_;
  std::vector<uint32_t> inputs_;
  std::vector<uint32_t> keptIds_;
  bool timeSteps_;
  double kernelMs_ = 0;
  std::vector<double> stepMs_;
};

}  // namespace tandem
