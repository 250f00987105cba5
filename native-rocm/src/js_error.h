// js_error.h: a Failure as a JavaScript Error: message, `code` and `hipError` (the runtime's error name or a
// TANDEM_* code) and, for allocations, `requestedBytes`.
#pragma once
#include <napi.h>
#include "failure.h"

namespace tandem {

/** The JavaScript Error for `failure`. */
inline Napi::Error ToJsError(Napi::Env env, const Failure& failure) {
  Napi::Error error = Napi::Error::New(env, failure.what());
  error.Set("code", Napi::String::New(env, failure.code()));
  error.Set("hipError", Napi::String::New(env, failure.code()));
  if (failure.requestedBytes() >= 0) error.Set("requestedBytes", Napi::Number::New(env, failure.requestedBytes()));
  return error;
}

}  // namespace tandem
