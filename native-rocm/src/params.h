// params.h: an op's scalar parameters (dimensions, factors, flags) as JavaScript passed them, by name.
#pragma once
#include <cmath>
#include <string>
#include <unordered_map>
#include "failure.h"

namespace tandem {

/** Named numbers of one op call. */
class Params {
 public:
  /** Sets a parameter (JS thread, while decoding the call). */
  void Set(const std::string& name, double value) { values_[name] = value; }

  /** Whether `name` was given. */
  bool Has(const std::string& name) const { return values_.count(name) != 0; }

  /** A number; TANDEM_BAD_PARAMS if missing. */
  double Num(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) throw Failure("TANDEM_BAD_PARAMS", "missing parameter '" + name + "'");
    return it->second;
  }

  /** A non-negative integer below 2^31 (dimensions, counts); TANDEM_BAD_PARAMS otherwise. */
  int Dim(const std::string& name) const {
    const double v = Num(name);
    if (!(v >= 0) || v > 2147483647.0 || std::floor(v) != v) throw Failure("TANDEM_BAD_PARAMS", "parameter '" + name + "' must be an integer in [0, 2^31)");
    return static_cast<int>(v);
  }

  /** An optional Dim, `fallback` when absent. */
  int DimOr(const std::string& name, int fallback) const { return Has(name) ? Dim(name) : fallback; }

 private:
  std::unordered_map<std::string, double> values_;
};

}  // namespace tandem
