// js_args.h: reading JavaScript arguments on the JS thread. Each reader throws a JavaScript Error with a TANDEM_*
// code naming what was wrong, before any work is queued.
#pragma once
#include <napi.h>
#include <string>
#include <vector>
#include "js_error.h"
#include "params.h"

namespace tandem {

/** Throws `failure` as a JavaScript Error. */
[[noreturn]] inline void Throw(Napi::Env env, const Failure& failure) { throw ToJsError(env, failure); }

/** An op's parameters: an object of numbers (booleans count as 0 / 1). */
inline Params ParamsArg(Napi::Env env, const Napi::Value& value) {
  if (!value.IsObject()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", "params must be an object of numbers"));
  const Napi::Object object = value.As<Napi::Object>();
  const Napi::Array names = object.GetPropertyNames();
  Params params;
  for (uint32_t i = 0; i < names.Length(); ++i) {
    const std::string name = names.Get(i).ToString().Utf8Value();
    const Napi::Value v = object.Get(name);
    if (v.IsNumber()) {
      params.Set(name, v.As<Napi::Number>().DoubleValue());
    } else if (v.IsBoolean()) {
      params.Set(name, v.As<Napi::Boolean>().Value() ? 1.0 : 0.0);
    } else {
      Throw(env, Failure("TANDEM_BAD_ARGUMENT", "params." + name + " must be a number or boolean"));
    }
  }
  return params;
}

/** An array of integers in [0, limit); `what` names it in the error. */
inline std::vector<uint32_t> IndexListArg(Napi::Env env, const Napi::Value& value, const std::string& what, double limit) {
  if (!value.IsArray()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", what + " must be an array of integers"));
  const Napi::Array array = value.As<Napi::Array>();
  std::vector<uint32_t> list;
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const Napi::Value v = array.Get(i);
    const double n = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(n >= 0 && n < limit) || static_cast<double>(static_cast<uint32_t>(n)) != n) {
      Throw(env, Failure("TANDEM_BAD_ARGUMENT", what + "[" + std::to_string(i) + "] must be an integer in [0, " + std::to_string(static_cast<long long>(limit)) + ")"));
    }
    list.push_back(static_cast<uint32_t>(n));
  }
  return list;
}

/** An array of byte counts; `what` names it in the error. */
inline std::vector<size_t> ByteListArg(Napi::Env env, const Napi::Value& value, const std::string& what) {
  if (!value.IsArray()) Throw(env, Failure("TANDEM_BAD_ARGUMENT", what + " must be an array of byte counts"));
  const Napi::Array array = value.As<Napi::Array>();
  std::vector<size_t> list;
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const Napi::Value v = array.Get(i);
    const double n = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(n >= 0) || n > 9007199254740991.0 || n != static_cast<double>(static_cast<size_t>(n))) {
      Throw(env, Failure("TANDEM_BAD_ARGUMENT", what + "[" + std::to_string(i) + "] must be a byte count"));
    }
    list.push_back(static_cast<size_t>(n));
  }
  return list;
}

}  // namespace tandem
