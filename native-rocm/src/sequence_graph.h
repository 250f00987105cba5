// sequence_graph.h: a prepared sequence captured as one HIP graph (CUDA graph through tandem_hip.h) and launched whole,
// so the host does no work per kernel and the device runs them back to back. A graph bakes in every pointer, so it
// owns a buffer for each value the steps write (the workspace, allocated once) and reads the run's inputs and the
// device's scratch where they were at capture; a run whose inputs or scratch moved captures it again. An input that
// moves between runs (a new activation each token) and is small gets a slot of its own at that capture: each run
// copies it there first, so it may move freely. Kept values are copied out of the workspace into fresh buffers after
// the launch (the caller owns those).
#pragma once
#include <vector>
#include "device_queue.h"
#include "kernel_registry.h"

namespace tandem {

class SequencePlan;

/** One step's kernels on the given value pointers (the loop path and the capture share it). */
void LaunchStep(const SequencePlan& plan, size_t index, const std::vector<void*>& values, LaunchContext& ctx);

/** A plan's launches captured as a graph over a workspace of its own. */
class SequenceGraph {
 public:
  SequenceGraph() = default;
  SequenceGraph(const SequenceGraph&) = delete;
  SequenceGraph& operator=(const SequenceGraph&) = delete;
  /** Destroys the graph and frees the workspace (after the device finished with them). */
  ~SequenceGraph();

  /** Inputs up to this many bytes that moved get a slot at the next capture. */
  static constexpr size_t kSlotMaxBytes = size_t{4} << 20;

  /** Whether the captured graph can run on these inputs (those without a slot where they were) and this scratch. */
  bool Matches(const std::vector<void*>& inputs, const void* scratch) const;
  /** Captures the plan's launches over `inputs`, slots and the workspace (made on the first capture); throws Failure. */
  void Capture(const SequencePlan& plan, DeviceState& state, const std::vector<void*>& inputs);
  /** Copies the slotted inputs into their slots, then enqueues the graph on `stream`. */
  void Launch(const SequencePlan& plan, const std::vector<void*>& inputs, hipStream_t stream) const;
  /** Where value `v` is: an input as captured, or its workspace buffer. */
  void* Value(size_t v) const { return values_[v]; }
  /** Captures made (the first, and one per move of an input or the scratch). */
  int captures() const { return captures_; }

 private:
  void DestroyExec();

  std::vector<void*> values_;      // every value's pointer at capture: inputs (or their slots), then the workspace
  std::vector<bool> owned_;        // values_[v] is ours: a slot or workspace (freed with the graph)
  const void* scratch_ = nullptr;  // the scratch region at capture
  hipGraphExec_t exec_ = nullptr;
  int captures_ = 0;
};

}  // namespace tandem
