// sequence_graph.cc: launching one step, and capturing a plan's steps as a graph.
#include "sequence_graph.h"
#include <string>
#include "sequence.h"

namespace tandem {

void LaunchStep(const SequencePlan& plan, size_t index, const std::vector<void*>& values, LaunchContext& ctx) {
  const SequenceStep& step = plan.steps[index];
  OpCall call{{}, {}, &step.params, &ctx};
  call.inputs.reserve(step.inputs.size());
  for (uint32_t v : step.inputs) call.inputs.push_back(values[v]);
  call.outputs.reserve(step.outputBytes.size());
  for (size_t o = 0; o < step.outputBytes.size(); ++o) call.outputs.push_back(values[step.firstOutput + o]);
  const hipError_t err = step.def->launch(call);
  if (err != hipSuccess) check(err, "sequence step " + std::to_string(index) + " (" + step.def->name + ")");
}

SequenceGraph::~SequenceGraph() {
  DestroyExec();
  for (size_t v = 0; v < values_.size(); ++v) {
    if (owned_[v] && values_[v] != nullptr) (void)hipFree(values_[v]);  // hipFree waits for the device
  }
}

bool SequenceGraph::Matches(const std::vector<void*>& inputs, const void* scratch) const {
  if (exec_ == nullptr || scratch != scratch_) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!owned_[i] && values_[i] != inputs[i]) return false;
  }
  return true;
}

#if TANDEM_HIP_GRAPHS

void SequenceGraph::DestroyExec() {
  if (exec_ != nullptr) (void)hipGraphExecDestroy(exec_);
  exec_ = nullptr;
}

void SequenceGraph::Capture(const SequencePlan& plan, DeviceState& state, const std::vector<void*>& inputs) {
  DestroyExec();
  if (values_.empty()) {
    values_.assign(plan.valueBytes.size(), nullptr);
    owned_.assign(plan.valueBytes.size(), false);
    for (size_t v = inputs.size(); v < plan.valueBytes.size(); ++v) {
      owned_[v] = true;
      if (plan.valueBytes[v] > 0) check(hipMalloc(&values_[v], plan.valueBytes[v]), "sequence workspace", static_cast<double>(plan.valueBytes[v]));
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const size_t bytes = plan.inputBytes[i];
    const bool moved = captures_ > 0 && !owned_[i] && values_[i] != inputs[i];
    if (moved && bytes > 0 && bytes <= kSlotMaxBytes) {
      check(hipMalloc(&values_[i], bytes), "sequence input slot", static_cast<double>(bytes));
      owned_[i] = true;
    }
    if (!owned_[i]) values_[i] = inputs[i];
  }
  LaunchContext ctx = state.Context();
  check(hipStreamBeginCapture(state.stream, hipStreamCaptureModeRelaxed), "hipStreamBeginCapture");
  hipGraph_t graph = nullptr;
  try {
    for (size_t s = 0; s < plan.steps.size(); ++s) LaunchStep(plan, s, values_, ctx);
  } catch (...) {
    (void)hipStreamEndCapture(state.stream, &graph);  // leaves the stream out of capture mode
    if (graph != nullptr) (void)hipGraphDestroy(graph);
    (void)hipGetLastError();
    throw;
  }
  check(hipStreamEndCapture(state.stream, &graph), "hipStreamEndCapture");
  const hipError_t err = hipGraphInstantiateWithFlags(&exec_, graph, 0);
  (void)hipGraphDestroy(graph);
  if (err != hipSuccess) {
    exec_ = nullptr;
    check(err, "hipGraphInstantiateWithFlags");
  }
  scratch_ = state.scratch.data();
  ++captures_;
}

void SequenceGraph::Launch(const SequencePlan& plan, const std::vector<void*>& inputs, hipStream_t stream) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (owned_[i]) check(hipMemcpyAsync(values_[i], inputs[i], plan.inputBytes[i], hipMemcpyDeviceToDevice, stream), "sequence input copy");
  }
  check(hipGraphLaunch(exec_, stream), "hipGraphLaunch");
}

#else

void SequenceGraph::DestroyExec() { exec_ = nullptr; }

void SequenceGraph::Capture(const SequencePlan&, DeviceState&, const std::vector<void*>&) {
  throw Failure("TANDEM_INTERNAL", "this build has no graphs");
}

void SequenceGraph::Launch(const SequencePlan&, const std::vector<void*>&, hipStream_t) const {
  throw Failure("TANDEM_INTERNAL", "this build has no graphs");
}

#endif

}  // namespace tandem
