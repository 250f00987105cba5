// sequence.h: a recorded run of kernels (graph replay, issue 28) launched by one call from JavaScript.
// prepareSequence(spec) checks every step once (kernel, parameters, which values it reads, buffer sizes) and keeps
// the plan; each runSequence(plan, inputIds) is then one job: the steps' kernels are launched back to back on the
// device's stream, intermediates go back to the pool after their last reader, and only the kept values come back as
// buffers. An event before each step gives each step's kernel time. Values 0..inputs-1 are the run's input buffers;
// each step's outputs follow in order (as in packages/core/src/sequence.ts).
#pragma once
#include <napi.h>
#include <memory>
#include <string>
#include <vector>
#include "device_queue.h"
#include "kernel_registry.h"
#include "params.h"
#include "sequence_graph.h"

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
  /** Its graph, captured on its second untimed run (the first sizes the scratch); null until then or when refused. */
  std::unique_ptr<SequenceGraph> graph;
  /** Why it runs without a graph for good (a capture failed), or empty. */
  std::string graphProblem;
  /** Runs started. */
  int runs = 0;
};

/**
 * One run of a plan: resolves with { outputs: kept buffer ids, kernelMs, stepMs: number[], graph, captures }. With
 * `timeSteps` the steps are launched one by one with an event before each (stepMs per step); without, the run is
 * the plan's graph where the build has graphs (from its second run), else the same launches untimed, and stepMs
 * is empty.
 */
class SequenceJob : public Job {
 public:
  SequenceJob(Napi::Env env, std::shared_ptr<SequencePlan> plan, std::vector<uint32_t> inputs, std::vector<uint32_t> keptIds, bool timeSteps);
  void Execute(DeviceState& state) override;
  Napi::Value Result(Napi::Env env) override;
  void Failed(DeviceQueue& queue) override;

 private:
  /** Launches every step, allocating outputs from the pool; `values` gets each value's pointer, `made` marks those
   *  this run allocated and holds. */
  void Launch(DeviceState& state, std::vector<void*>& values, std::vector<bool>& made);
  /** Runs the plan's graph (capturing it when the inputs or scratch moved) and copies the kept values out; false
   *  when the plan cannot have a graph (then nothing was launched). */
  bool RunGraph(DeviceState& state, const std::vector<void*>& inputs);

  std::shared_ptr<SequencePlan> plan_;
  std::vector<uint32_t> inputs_;
  std::vector<uint32_t> keptIds_;
  bool timeSteps_;
  double kernelMs_ = 0;
  std::vector<double> stepMs_;
  std::vector<void*> keptPtrs_;  // the kept values' buffers, registered under keptIds_ at the end
  bool ranGraph_ = false;
  int captures_ = 0;  // the plan's captures so far, after a graph run
};

}  // namespace tandem
