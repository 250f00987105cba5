// device.cc: argument checking on the JS thread (buffer ids, sizes, parameters), then a job on the queue (or, for
// upload, download and run called with inline = true while the queue is idle, the job run on the JS thread).
// Argument errors throw synchronously with code TANDEM_*; device errors reject the promise with the HIP name.
#include "device.h"
#include "jobs.h"
#include "js_args.h"
#include "sequence.h"

namespace tandem {
namespace {

uint32_t IdArg(Napi::Env env, const Napi::Value& value, const char* what) {
  if (!value.IsNumber()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", std::string(what) + " must be a buffer id (number)"));
  const double id = value.As<Napi::Number>().DoubleValue();
  if (!(id >= 1) || id > 4294967295.0 || static_cast<double>(static_cast<uint32_t>(id)) != id) Throw(env, Failure("TANDEM_BAD_ARGUMENT", std::string(what) + " is not a valid buffer id"));
  return static_cast<uint32_t>(id);
}

/** The optional `inline` flag at `index`: true asks to run on the JS thread when the queue is idle. */
bool InlineArg(const Napi::CallbackInfo& info, size_t index) {
  if (info.Length() <= index || info[index].IsUndefined()) return false;
  if (!info[index].IsBoolean()) Throw(info.Env(), Failure("TANDEM_BAD_ARGUMENT", "inline must be a boolean"));
  return info[index].As<Napi::Boolean>().Value();
}

/** Queues `job`, or runs it inline when asked and nothing is pending. */
void Enqueue(Napi::Env env, DeviceQueue& queue, std::unique_ptr<Job> job, bool runInline) {
  if (runInline) {
    queue.RunInlineOrPush(env, std::move(job));
  } else {
    queue.Push(env, std::move(job));
  }
}

}  // namespace

void Device::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "Device",
                                   {InstanceMethod<&Device::Upload>("upload"), InstanceMethod<&Device::Download>("download"),
                                    InstanceMethod<&Device::Free>("free"), InstanceMethod<&Device::Run>("run"), InstanceMethod<&Device::Time>("time"),
                                    InstanceMethod<&Device::PrepareSequence>("prepareSequence"), InstanceMethod<&Device::RunSequence>("runSequence"),
                                    InstanceMethod<&Device::MemoryInfo>("memoryInfo"), InstanceMethod<&Device::PinnedBlockFree>("pinnedBlockFree"),
                                    InstanceMethod<&Device::Close>("close"),
                                    InstanceAccessor<&Device::Index>("index")});
  exports.Set("Device", cls);
}

Device::Device(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Device>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "new Device(index): index must be a number"));
  index_ = info[0].As<Napi::Number>().Int32Value();
  auto state = std::make_unique<DeviceState>();
  state->index = index_;
  try {
    check(hipSetDevice(index_), "hipSetDevice(" + std::to_string(index_) + ")");
    hipDeviceProp_t prop;
    check(hipGetDeviceProperties(&prop, index_), "hipGetDeviceProperties");
    state->warpSize = prop.warpSize;
    state->multiProcessors = prop.multiProcessorCount;
    check(hipStreamCreateWithFlags(&state->stream, hipStreamNonBlocking), "hipStreamCreateWithFlags");
    check(hipEventCreate(&state->start), "hipEventCreate");
    check(hipEventCreate(&state->stop), "hipEventCreate");
  } catch (const Failure& f) {
    state->ReleaseAll();
    Throw(env, f);
  }
  host_ = state->host;
  queue_ = DeviceQueue::Create(env, std::move(state), [this](Napi::Env, bool busy) {
    // A device with work in flight stays alive even if JavaScript drops it.
    if (busy) {
      Ref();
    } else {
      Unref();
    }
  });
}

Device::~Device() {
  if (queue_) {
    queue_->Detach();
    queue_->Shutdown();
  }
}

DeviceQueue& Device::Open(Napi::Env env) {
  if (!queue_ || queue_->closed()) Throw(env, Failure("TANDEM_CLOSED", "the device was closed"));
  return *queue_;
}

Napi::Value Device::Upload(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceQueue& queue = Open(env);
  if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    Throw(env, Failure("TANDEM_BAD_ARGUMENT", "upload(data): data must be a Uint8Array"));
  }
  const bool runInline = InlineArg(info, 1);
  Napi::Uint8Array data = info[0].As<Napi::Uint8Array>();
  const uint32_t id = queue.NewId(data.ByteLength());
  auto job = std::make_unique<UploadJob>(env, id, data);
  Napi::Promise promise = job->deferred->Promise();
  Enqueue(env, queue, std::move(job), runInline);
  return promise;
}

Napi::Value Device::Download(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceQueue& queue = Open(env);
  const uint32_t id = IdArg(env, info[0], "download(id): id");
  const bool runInline = InlineArg(info, 1);
  const size_t* bytes = queue.SizeOf(id);
  if (bytes == nullptr) Throw(env, Failure("TANDEM_UNKNOWN_BUFFER", "download: buffer " + std::to_string(id) + " does not exist (freed?)"));
  auto job = std::make_unique<DownloadJob>(env, id, *bytes);
  Napi::Promise promise = job->deferred->Promise();
  Enqueue(env, queue, std::move(job), runInline);
  return promise;
}

Napi::Value Device::Free(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!queue_ || queue_->closed()) return Napi::Boolean::New(env, false);
  const uint32_t id = IdArg(env, info[0], "free(id): id");
  if (queue_->SizeOf(id) == nullptr) return Napi::Boolean::New(env, false);
  queue_->Forget(id);
  queue_->RunInlineOrPush(env, std::make_unique<FreeJob>(id));  // a cache release when idle: microseconds
  return Napi::Boolean::New(env, true);
}

namespace {

/** The checked arguments of run() and time(). */
struct RunArgs {
  /** The native op. */
  const OpDef* def;
  /** Its parameters. */
  Params params;
  /** Input buffer ids: one set for run(), one or more for time(). */
  std::vector<std::vector<uint32_t>> inputSets;
  /** Bytes of each output. */
  std::vector<size_t> outputBytes;
};

/** Checks the kernel name, each input set's ids and sizes, and the output sizes against the parameters. */
RunArgs ParseRunArgs(Napi::Env env, DeviceQueue& queue, const std::string& kernel, const std::vector<Napi::Array>& inputSets, const Napi::Array& outputArray, const Napi::Value& paramsArg) {
  const OpDef* def = FindOp(kernel);
  if (def == nullptr) Throw(env, Failure("TANDEM_UNKNOWN_KERNEL", "no native kernel named '" + kernel + "'"));
  if (static_cast<int>(outputArray.Length()) != def->outputs) Throw(env, Failure("TANDEM_BAD_ARGUMENT", kernel + ": wrong number of outputs"));
  RunArgs args{def, ParamsArg(env, paramsArg), {}, {}};
  std::vector<double> need;
  for (const Napi::Array& inputArray : inputSets) {
    const int inputCount = static_cast<int>(inputArray.Length());
    if (inputCount < def->minInputs || inputCount > def->maxInputs) Throw(env, Failure("TANDEM_BAD_ARGUMENT", kernel + ": wrong number of inputs"));
    try {
      need = def->sizes(args.params, inputCount);
    } catch (const Failure& f) {
      Throw(env, Failure(f.code(), kernel + ": " + f.what()));
    }
    std::vector<uint32_t> inputs;
    for (int i = 0; i < inputCount; ++i) {
      const uint32_t id = IdArg(env, inputArray.Get(static_cast<uint32_t>(i)), "run: input id");
      const size_t* bytes = queue.SizeOf(id);
      if (bytes == nullptr) Throw(env, Failure("TANDEM_UNKNOWN_BUFFER", kernel + ": input buffer " + std::to_string(id) + " does not exist (freed?)"));
      if (static_cast<double>(*bytes) < need[i]) {
        Throw(env, Failure("TANDEM_BAD_ARGUMENT", kernel + ": input " + std::to_string(i) + " has " + std::to_string(*bytes) + " bytes, the parameters need " + std::to_string(static_cast<long long>(need[i]))));
      }
      inputs.push_back(id);
    }
    args.inputSets.push_back(std::move(inputs));
  }
  const int inputCount = static_cast<int>(args.inputSets.front().size());
  for (int i = 0; i < def->outputs; ++i) {
    const Napi::Value v = outputArray.Get(static_cast<uint32_t>(i));
    const double bytes = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(bytes >= need[inputCount + i]) || bytes > 9007199254740991.0) {
      Throw(env, Failure("TANDEM_BAD_ARGUMENT", kernel + ": output " + std::to_string(i) + " must have at least " + std::to_string(static_cast<long long>(need[inputCount + i])) + " bytes"));
    }
    args.outputBytes.push_back(static_cast<size_t>(bytes));
  }
  return args;
}

}  // namespace

Napi::Value Device::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceQueue& queue = Open(env);
  if (info.Length() < 4 || !info[0].IsString() || !info[1].IsArray() || !info[2].IsArray()) {
    Throw(env, Failure("TANDEM_BAD_ARGUMENT", "run(kernel: string, inputIds: number[], outputBytes: number[], params: object)"));
  }
  const bool runInline = InlineArg(info, 4);
  RunArgs args = ParseRunArgs(env, queue, info[0].As<Napi::String>().Utf8Value(), {info[1].As<Napi::Array>()}, info[2].As<Napi::Array>(), info[3]);
  std::vector<uint32_t> outputs;
  for (size_t bytes : args.outputBytes) outputs.push_back(queue.NewId(bytes));
  auto job = std::make_unique<RunJob>(env, args.def, std::move(args.params), std::move(args.inputSets.front()), std::move(outputs), std::move(args.outputBytes));
  Napi::Promise promise = job->deferred->Promise();
  Enqueue(env, queue, std::move(job), runInline);
  return promise;
}

Napi::Value Device::Time(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceQueue& queue = Open(env);
  const char* usage = "time(kernel: string, inputSets: number[][], outputBytes: number[], params: object, launches: number)";
  if (info.Length() < 5 || !info[0].IsString() || !info[1].IsArray() || !info[2].IsArray() || !info[4].IsNumber()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", usage));
  const Napi::Array setArray = info[1].As<Napi::Array>();
  std::vector<Napi::Array> sets;
  for (uint32_t i = 0; i < setArray.Length(); ++i) {
    const Napi::Value set = setArray.Get(i);
    if (!set.IsArray()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", usage));
    sets.push_back(set.As<Napi::Array>());
  }
  if (sets.empty()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "time: inputSets is empty"));
  const double launches = info[4].As<Napi::Number>().DoubleValue();
  if (!(launches >= 1 && launches <= 100000) || launches != static_cast<double>(static_cast<int>(launches))) {
    Throw(env, Failure("TANDEM_BAD_ARGUMENT", "time: launches must be an integer from 1 to 100000, got " + std::to_string(launches)));
  }
  RunArgs args = ParseRunArgs(env, queue, info[0].As<Napi::String>().Utf8Value(), sets, info[2].As<Napi::Array>(), info[3]);
  auto job = std::make_unique<TimeJob>(env, args.def, std::move(args.params), std::move(args.inputSets), std::move(args.outputBytes), static_cast<int>(launches));
  Napi::Promise promise = job->deferred->Promise();
  queue.Push(env, std::move(job));
  return promise;
}

namespace {

/** Marks the handles prepareSequence returns, so runSequence can tell them from any other external. */
const napi_type_tag kSequenceTag = {0x7a6e5c1f3b2d4e09ULL, 0x91c4d8e2f06a3b75ULL};

}  // namespace

Napi::Value Device::PrepareSequence(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceQueue& queue = Open(env);
  std::shared_ptr<SequencePlan> plan = SequencePlan::Parse(env, info.Length() < 1 ? env.Undefined() : info[0]);
  plan->owner = &queue;
  auto* held = new std::shared_ptr<SequencePlan>(std::move(plan));
  Napi::External<std::shared_ptr<SequencePlan>> handle = Napi::External<std::shared_ptr<SequencePlan>>::New(
      env, held, [](Napi::Env, std::shared_ptr<SequencePlan>* p) { delete p; });
  if (napi_type_tag_object(env, handle, &kSequenceTag) != napi_ok) Throw(env, Failure("TANDEM_INTERNAL", "could not tag the sequence handle"));
  return handle;
}

Napi::Value Device::RunSequence(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  DeviceQueue& queue = Open(env);
  const char* usage = "runSequence(sequence: handle from prepareSequence, inputIds: number[], timeSteps: boolean, inline?: boolean)";
  bool tagged = false;
  if (info.Length() < 3 || !info[0].IsExternal() || !info[1].IsArray() || !info[2].IsBoolean() ||
      napi_check_object_type_tag(env, info[0], &kSequenceTag, &tagged) != napi_ok || !tagged) {
    Throw(env, Failure("TANDEM_BAD_ARGUMENT", usage));
  }
  const std::shared_ptr<SequencePlan> plan = *info[0].As<Napi::External<std::shared_ptr<SequencePlan>>>().Data();
  if (plan->owner != &queue) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "runSequence: the sequence was prepared on another device"));
  const Napi::Array inputArray = info[1].As<Napi::Array>();
  if (inputArray.Length() != plan->inputBytes.size()) {
    Throw(env, Failure("TANDEM_BAD_ARGUMENT", "runSequence: " + std::to_string(inputArray.Length()) + " inputs given, the sequence takes " + std::to_string(plan->inputBytes.size())));
  }
  std::vector<uint32_t> inputs;
  for (uint32_t i = 0; i < inputArray.Length(); ++i) {
    const uint32_t id = IdArg(env, inputArray.Get(i), "runSequence: input id");
    const size_t* bytes = queue.SizeOf(id);
    if (bytes == nullptr) Throw(env, Failure("TANDEM_UNKNOWN_BUFFER", "runSequence: input buffer " + std::to_string(id) + " does not exist (freed?)"));
    if (*bytes < plan->inputBytes[i]) {
      Throw(env, Failure("TANDEM_BAD_ARGUMENT", "runSequence: input " + std::to_string(i) + " has " + std::to_string(*bytes) + " bytes, the sequence needs " + std::to_string(plan->inputBytes[i])));
    }
    inputs.push_back(id);
  }
  const bool timeSteps = info[2].As<Napi::Boolean>().Value();
  const bool runInline = InlineArg(info, 3);
  std::vector<uint32_t> kept;
  for (uint32_t v : plan->keep) kept.push_back(queue.NewId(plan->valueBytes[v]));
  auto job = std::make_unique<SequenceJob>(env, plan, std::move(inputs), std::move(kept), timeSteps);
  Napi::Promise promise = job->deferred->Promise();
  Enqueue(env, queue, std::move(job), runInline);
  return promise;
}

Napi::Value Device::MemoryInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t freeBytes = 0;
  size_t totalBytes = 0;
  try {
    check(hipSetDevice(index_), "hipSetDevice");
    check(hipMemGetInfo(&freeBytes, &totalBytes), "hipMemGetInfo");
  } catch (const Failure& f) {
    Throw(env, f);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("free", Napi::Number::New(env, static_cast<double>(freeBytes)));
  result.Set("total", Napi::Number::New(env, static_cast<double>(totalBytes)));
  result.Set("pinnedHost", Napi::Number::New(env, static_cast<double>(host_->pinned())));
  return result;
}

Napi::Value Device::PinnedBlockFree(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "pinnedBlockFree(bytes): bytes must be a number"));
  const double bytes = info[0].As<Napi::Number>().DoubleValue();
  if (!(bytes >= 0) || bytes > 9007199254740991.0) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "pinnedBlockFree(bytes): bytes must be a byte count"));
  // Downloads under kMinBytes land in a JavaScript array and never wait for a block.
  return Napi::Boolean::New(env, bytes < static_cast<double>(HostPool::kMinBytes) || host_->CanServe(static_cast<size_t>(bytes)));
}

Napi::Value Device::Close(const Napi::CallbackInfo& info) {
  if (queue_) queue_->Shutdown();
  return info.Env().Undefined();
}

Napi::Value Device::Index(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), index_); }

}  // namespace tandem
