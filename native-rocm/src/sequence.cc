// sequence.cc: checking a sequence once on the JS thread, and running it as one job.
#include "sequence.h"
#include "js_args.h"

namespace tandem {
namespace {

/** Throws TANDEM_BAD_ARGUMENT naming step `index` of the sequence. */
[[noreturn]] void StepError(Napi::Env env, size_t index, const std::string& kernel, const std::string& message) {
  Throw(env, Failure("TANDEM_BAD_ARGUMENT", "sequence step " + std::to_string(index) + " (" + kernel + "): " + message));
}

/**
 * Step `index` of the spec, checked against the values before it (none it reads may have been released); appends
 * its outputs to `valueBytes` and marks what it releases in `released`.
 */
SequenceStep ParseStep(Napi::Env env, const Napi::Value& value, size_t index, std::vector<size_t>& valueBytes, std::vector<bool>& released) {
  if (!value.IsObject()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "sequence step " + std::to_string(index) + " must be an object"));
  const Napi::Object object = value.As<Napi::Object>();
  const Napi::Value kernelArg = object.Get("kernel");
  if (!kernelArg.IsString()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "sequence step " + std::to_string(index) + ": kernel must be a string"));
  const std::string kernel = kernelArg.As<Napi::String>().Utf8Value();
  const OpDef* def = FindOp(kernel);
  if (def == nullptr) Throw(env, Failure("TANDEM_UNKNOWN_KERNEL", "sequence step " + std::to_string(index) + ": no native kernel named '" + kernel + "'"));
  const std::string where = "sequence step " + std::to_string(index);
  SequenceStep step{def, ParamsArg(env, object.Get("params")), IndexListArg(env, object.Get("inputs"), where + ".inputs", static_cast<double>(valueBytes.size())), 0, ByteListArg(env, object.Get("outputBytes"), where + ".outputBytes"), {}};
  const int inputCount = static_cast<int>(step.inputs.size());
  if (inputCount < def->minInputs || inputCount > def->maxInputs) StepError(env, index, kernel, "wrong number of inputs");
  if (static_cast<int>(step.outputBytes.size()) != def->outputs) StepError(env, index, kernel, "wrong number of outputs");
  std::vector<double> need;
  try {
    need = def->sizes(step.params, inputCount);
  } catch (const Failure& f) {
    Throw(env, Failure(f.code(), where + " (" + kernel + "): " + f.what()));
  }
  for (int i = 0; i < inputCount; ++i) {
    if (released[step.inputs[static_cast<size_t>(i)]]) StepError(env, index, kernel, "input " + std::to_string(i) + " reads value " + std::to_string(step.inputs[static_cast<size_t>(i)]) + ", released by an earlier step");
    const size_t bytes = valueBytes[step.inputs[static_cast<size_t>(i)]];
    if (static_cast<double>(bytes) < need[static_cast<size_t>(i)]) {
      StepError(env, index, kernel, "input " + std::to_string(i) + " (value " + std::to_string(step.inputs[static_cast<size_t>(i)]) + ") has " + std::to_string(bytes) + " bytes, the parameters need " + std::to_string(static_cast<long long>(need[static_cast<size_t>(i)])));
    }
  }
  for (size_t i = 0; i < step.outputBytes.size(); ++i) {
    if (static_cast<double>(step.outputBytes[i]) < need[static_cast<size_t>(inputCount) + i]) {
      StepError(env, index, kernel, "output " + std::to_string(i) + " must have at least " + std::to_string(static_cast<long long>(need[static_cast<size_t>(inputCount) + i])) + " bytes");
    }
  }
  step.firstOutput = static_cast<uint32_t>(valueBytes.size());
  for (size_t bytes : step.outputBytes) valueBytes.push_back(bytes);
  released.resize(valueBytes.size(), false);
  step.release = IndexListArg(env, object.Get("release"), where + ".release", static_cast<double>(valueBytes.size()));
  for (uint32_t v : step.release) released[v] = true;
  return step;
}

}  // namespace

std::shared_ptr<SequencePlan> SequencePlan::Parse(Napi::Env env, const Napi::Value& spec) {
  if (!spec.IsObject()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "prepareSequence(spec): spec must be an object"));
  const Napi::Object object = spec.As<Napi::Object>();
  auto plan = std::make_shared<SequencePlan>();
  plan->inputBytes = ByteListArg(env, object.Get("inputBytes"), "sequence.inputBytes");
  plan->valueBytes = plan->inputBytes;
  const Napi::Value stepsArg = object.Get("steps");
  if (!stepsArg.IsArray() || stepsArg.As<Napi::Array>().Length() == 0) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "sequence.steps must be a non-empty array"));
  const Napi::Array steps = stepsArg.As<Napi::Array>();
  std::vector<bool> released(plan->valueBytes.size(), false);
  for (uint32_t i = 0; i < steps.Length(); ++i) plan->steps.push_back(ParseStep(env, steps.Get(i), i, plan->valueBytes, released));
  plan->keep = IndexListArg(env, object.Get("keep"), "sequence.keep", static_cast<double>(plan->valueBytes.size()));
  std::vector<bool> kept(plan->valueBytes.size(), false);
  for (uint32_t id : plan->keep) {
    if (id < plan->inputBytes.size()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "sequence.keep: value " + std::to_string(id) + " is an input; keep names step outputs"));
    // Two buffer ids over one allocation would each free it.
    if (kept[id]) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "sequence.keep: value " + std::to_string(id) + " is kept twice"));
    kept[id] = true;
  }
  return plan;
}

SequencePlan::~SequencePlan() {
  for (hipEvent_t e : events) (void)hipEventDestroy(e);
}

SequenceJob::SequenceJob(Napi::Env env, std::shared_ptr<SequencePlan> plan, std::vector<uint32_t> inputs, std::vector<uint32_t> keptIds, bool timeSteps)
    : plan_(std::move(plan)), inputs_(std::move(inputs)), keptIds_(std::move(keptIds)), timeSteps_(timeSteps) {
  deferred.emplace(Napi::Promise::Deferred::New(env));
}

void SequenceJob::Execute(DeviceState& state) {
  SequencePlan& plan = *plan_;
  while (plan.events.size() < plan.steps.size() + 1) {
    hipEvent_t e = nullptr;
    check(hipEventCreate(&e), "hipEventCreate");
    plan.events.push_back(e);
  }
  std::vector<void*> inputs;
  for (uint32_t id : inputs_) inputs.push_back(state.Find(id).ptr);
  const bool graphRun = TANDEM_HIP_GRAPHS && !timeSteps_ && plan.runs > 0 && plan.graphProblem.empty();
  ++plan.runs;
  if (graphRun && RunGraph(state, inputs)) {
    ranGraph_ = true;
    captures_ = plan.graph->captures();
  } else {
    std::vector<void*> values(plan.valueBytes.size(), nullptr);
    std::vector<bool> made(plan.valueBytes.size(), false);
    for (size_t i = 0; i < inputs.size(); ++i) values[i] = inputs[i];
    try {
      Launch(state, values, made);
    } catch (...) {
      for (size_t v = 0; v < values.size(); ++v) {
        if (made[v]) state.pool.Release(values[v], plan.valueBytes[v]);
      }
      throw;
    }
    for (uint32_t v : plan.keep) keptPtrs_.push_back(values[v]);
  }
  for (size_t k = 0; k < plan.keep.size(); ++k) state.buffers[keptIds_[k]] = Allocation{keptPtrs_[k], plan.valueBytes[plan.keep[k]]};
}

bool SequenceJob::RunGraph(DeviceState& state, const std::vector<void*>& inputs) {
  SequencePlan& plan = *plan_;
  if (plan.graph == nullptr) plan.graph = std::make_unique<SequenceGraph>();
  if (!plan.graph->Matches(inputs, state.scratch.data())) {
    try {
      plan.graph->Capture(plan, state, inputs);
    } catch (const Failure& f) {
      // A kernel that cannot be captured (or no memory for the workspace): this plan launches step by step.
      plan.graphProblem = f.what();
      plan.graph.reset();
      (void)hipGetLastError();
      return false;
    }
  }
  const size_t last = plan.steps.size();
  try {
    check(hipEventRecord(plan.events[0], state.stream), "hipEventRecord");
    plan.graph->Launch(plan, inputs, state.stream);
    for (uint32_t v : plan.keep) {
      void* copy = state.pool.Allocate(plan.valueBytes[v], "sequence kept value " + std::to_string(v));
      keptPtrs_.push_back(copy);
      if (plan.valueBytes[v] > 0) check(hipMemcpyAsync(copy, plan.graph->Value(v), plan.valueBytes[v], hipMemcpyDeviceToDevice, state.stream), "sequence kept value copy");
    }
    check(hipEventRecord(plan.events[last], state.stream), "hipEventRecord");
    check(hipEventSynchronize(plan.events[last]), "sequence graph (kernel execution)");
    float ms = 0;
    check(hipEventElapsedTime(&ms, plan.events[0], plan.events[last]), "hipEventElapsedTime");
    kernelMs_ = ms;
  } catch (...) {
    for (size_t k = 0; k < keptPtrs_.size(); ++k) state.pool.Release(keptPtrs_[k], plan.valueBytes[plan.keep[k]]);
    keptPtrs_.clear();
    throw;
  }
  return true;
}

void SequenceJob::Launch(DeviceState& state, std::vector<void*>& values, std::vector<bool>& made) {
  SequencePlan& plan = *plan_;
  std::vector<bool> kept(plan.valueBytes.size(), false);
  for (uint32_t v : plan.keep) kept[v] = true;
  LaunchContext ctx = state.Context();
  const size_t last = plan.steps.size();
  check(hipEventRecord(plan.events[0], state.stream), "hipEventRecord");
  for (size_t s = 0; s < last; ++s) {
    const SequenceStep& step = plan.steps[s];
    for (size_t o = 0; o < step.outputBytes.size(); ++o) {
      const size_t v = step.firstOutput + o;
      values[v] = state.pool.Allocate(step.outputBytes[o], "sequence step " + std::to_string(s) + " (" + step.def->name + ") output " + std::to_string(o));
      made[v] = true;
    }
    if (timeSteps_ && s > 0) check(hipEventRecord(plan.events[s], state.stream), "hipEventRecord");
    LaunchStep(plan, s, values, ctx);
    for (uint32_t v : step.release) {
      if (!made[v] || kept[v]) continue;
      state.pool.Release(values[v], plan.valueBytes[v]);  // stream-ordered: a later step may reuse it
      made[v] = false;
    }
  }
  check(hipEventRecord(plan.events[last], state.stream), "hipEventRecord");
  check(hipEventSynchronize(plan.events[last]), "sequence (kernel execution)");
  float ms = 0;
  check(hipEventElapsedTime(&ms, plan.events[0], plan.events[last]), "hipEventElapsedTime");
  kernelMs_ = ms;
  stepMs_.clear();
  if (!timeSteps_) return;
  for (size_t s = 0; s < last; ++s) {
    check(hipEventElapsedTime(&ms, plan.events[s], plan.events[s + 1]), "hipEventElapsedTime");
    stepMs_.push_back(ms);
  }
}

Napi::Value SequenceJob::Result(Napi::Env env) {
  Napi::Object result = Napi::Object::New(env);
  Napi::Array ids = Napi::Array::New(env, keptIds_.size());
  for (size_t i = 0; i < keptIds_.size(); ++i) ids.Set(static_cast<uint32_t>(i), Napi::Number::New(env, keptIds_[i]));
  result.Set("outputs", ids);
  result.Set("kernelMs", Napi::Number::New(env, kernelMs_));
  Napi::Array steps = Napi::Array::New(env, stepMs_.size());
  for (size_t i = 0; i < stepMs_.size(); ++i) steps.Set(static_cast<uint32_t>(i), Napi::Number::New(env, stepMs_[i]));
  result.Set("stepMs", steps);
  result.Set("graph", Napi::Boolean::New(env, ranGraph_));
  result.Set("captures", Napi::Number::New(env, captures_));
  return result;
}

void SequenceJob::Failed(DeviceQueue& queue) {
  for (uint32_t id : keptIds_) queue.Forget(id);
}

}  // namespace tandem
