// op_table.h: the native kernels JavaScript can run, each with its inputs, outputs, parameters, a size check
// (every buffer must be large enough for the shapes the parameters describe) and its launch.
#pragma once
#include <string>
#include <vector>
#include "../kernels/kernels.h"
#include "params.h"

namespace tandem {

/** One run: device pointers in the op's order, the parameters and the device's launch context. */
struct OpCall {
  /** Input device pointers (null for empty buffers). */
  std::vector<const void*> inputs;
  /** Output device pointers. */
  std::vector<void*> outputs;
  /** Named parameters. */
  const Params* params;
  /** Stream, warp size, scratch. */
  const LaunchContext* ctx;
};

/** A native kernel entry. */
struct OpDef {
  /** Kernel id used by JavaScript, e.g. "matmul_f32". */
  const char* name;
  /** Fewest inputs. */
  int minInputs;
  /** Most inputs (rms_norm's weight is optional). */
  int maxInputs;
  /** Outputs it writes. */
  int outputs;
  /** Minimum byte sizes of inputs then outputs, from the parameters; throws Failure on bad parameters. */
  std::vector<double> (*sizes)(const Params& p, int inputs);
  /** Enqueues the kernels. */
  hipError_t (*launch)(const OpCall& call);
};

/** The entry named `name`, or null. */
const OpDef* FindOp(const std::string& name);

/** Every kernel id, for JavaScript's sanity checks. */
std::vector<std::string> OpNames();

}  // namespace tandem
