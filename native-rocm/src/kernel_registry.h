// kernel_registry.h: the native kernels JavaScript can run. Each kernel file (native-rocm/kernels/<op_id>.hip)
// registers its kernels when the addon loads: the kernel id, its inputs and outputs, its parameter struct with the
// struct's field table, a size check (every buffer must be large enough for the shapes the parameters describe, so
// a wrong call fails instead of corrupting memory) and its launch.
#pragma once
#include <array>
#include <functional>
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
  /** The parameters as JavaScript passed them. */
  const Params* params;
  /** Stream, warp size, scratch. */
  const LaunchContext* ctx;
};

/** One parameter of a kernel, as kernels() reports it. */
struct ParamSignature {
  /** Its name. */
  std::string name;
  /** 'dim', 'number' or 'flag', with '?' when optional. */
  std::string kind;
};

/** A registered native kernel. */
struct OpDef {
  /** Kernel id used by JavaScript, e.g. "matmul_f32". */
  const char* name;
  /** Fewest inputs. */
  int minInputs;
  /** Most inputs (rms_norm's weight is optional). */
  int maxInputs;
  /** Outputs it writes. */
  int outputs;
  /** Its parameters in field order. */
  std::vector<ParamSignature> params;
  /** Minimum byte sizes of inputs then outputs, from the parameters; throws Failure on bad parameters. */
  std::function<std::vector<double>(const Params&, int inputs)> sizes;
  /** Enqueues the kernels. */
  std::function<hipError_t(const OpCall&)> launch;
};

/** Adds a kernel to the table (at load, from each kernel file's registration). */
void RegisterOp(OpDef def);

/** The entry named `name`, or null. */
const OpDef* FindOp(const std::string& name);

/** Every registered kernel, in registration order. */
const std::vector<OpDef>& AllOps();

/** A kernel with parameter struct P described by N fields, as a kernel file declares it. */
template <typename P, size_t N>
struct KernelDefinition {
  /** Kernel id. */
  const char* name;
  /** Fewest inputs. */
  int minInputs;
  /** Most inputs. */
  int maxInputs;
  /** Outputs. */
  int outputs;
  /** P's field table. */
  std::array<ParamField<P>, N> fields;
  /** Minimum byte sizes of inputs then outputs; may throw Failure("TANDEM_BAD_PARAMS", ...). */
  std::vector<double> (*sizes)(const P& p, int inputs);
  /** Enqueues the kernels. */
  hipError_t (*launch)(const OpCall& call, const P& p);
};

/** Registers a kernel file's kernel; `static const bool registered = Register(...)` runs it at load. */
template <typename P, size_t N>
bool Register(const KernelDefinition<P, N>& k) {
  std::vector<ParamSignature> params;
  for (const ParamField<P>& f : k.fields) params.push_back({f.name, KindName(f.kind, f.optional)});
  RegisterOp(OpDef{
      k.name, k.minInputs, k.maxInputs, k.outputs, std::move(params),
      [k](const Params& raw, int inputs) { return k.sizes(DecodeParams<P>(k.name, raw, k.fields), inputs); },
      [k](const OpCall& call) { return k.launch(call, DecodeParams<P>(k.name, *call.params, k.fields)); },
  });
  return true;
}

/** Input i of a call as T. */
template <typename T>
const T* input(const OpCall& c, int i) { return static_cast<const T*>(c.inputs[static_cast<size_t>(i)]); }
/** Output i of a call as T. */
template <typename T>
T* output(const OpCall& c, int i) { return static_cast<T*>(c.outputs[static_cast<size_t>(i)]); }

/** Bytes per element of the size checks. */
constexpr double kF32Bytes = 4;
constexpr double kF16Bytes = 2;
constexpr double kQ8BlockBytes = 34;
constexpr double kQ4BlockBytes = 18;

}  // namespace tandem
