// failure.h: how the addon reports what went wrong. A HIP error keeps its runtime name (hipErrorOutOfMemory,
// cudaErrorMemoryAllocation, ...) as `code`, which reaches JavaScript as error.code; the addon's own checks use
// TANDEM_* codes.
#pragma once
#include <stdexcept>
#include <string>
#include "tandem_hip.h"

namespace tandem {

/** A failed HIP call or addon check, thrown on the worker thread and turned into a rejected promise. */
class Failure : public std::runtime_error {
 public:
  Failure(std::string code, const std::string& message, double requestedBytes = -1)
      : std::runtime_error(message), code_(std::move(code)), requestedBytes_(requestedBytes) {}

  /** The runtime's error name (hipError..., cudaError...) or a TANDEM_ code. */
  const std::string& code() const { return code_; }
  /** Bytes an allocation asked for, or -1. */
  double requestedBytes() const { return requestedBytes_; }

 private:
  std::string code_;
  double requestedBytes_;
};

/** Throws a Failure naming `what` unless err is hipSuccess. */
inline void check(hipError_t err, const std::string& what, double requestedBytes = -1) {
  if (err == hipSuccess) return;
  throw Failure(hipGetErrorName(err), what + ": " + hipGetErrorName(err) + " (" + hipGetErrorString(err) + ")", requestedBytes);
}

}  // namespace tandem
