// params.h: an op's scalar parameters. JavaScript passes them by name (Params: the raw numbers of one call); each
// kernel reads them as its own struct, decoded by that struct's field table (ParamField), which is the one place a
// name is written in C++. The TypeScript side writes each kernel's parameters once too (packages/rocm/src/kernels),
// and a test compares the two through the addon's kernels() (every field's name, kind and whether it is optional).
// A parameter the table does not list, a missing one or one out of range is TANDEM_BAD_PARAMS naming the kernel.
#pragma once
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>
#include "failure.h"

namespace tandem {

/** The numbers one call passed, by name (decoded once on the JS thread). */
class Params {
 public:
  /** Sets a parameter. */
  void Set(const std::string& name, double value) { values_[name] = value; }
  /** Whether `name` was given. */
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  /** The value of a parameter that was given. */
  double Get(const std::string& name) const { return values_.at(name); }
  /** Every name given. */
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : values_) names.push_back(entry.first);
    return names;
  }

 private:
  std::unordered_map<std::string, double> values_;
};

/** What a field holds: an integer in [0, 2^31) (dimensions, counts, variants), any number, or a 0/1 flag. */
enum class ParamKind { Dim, Number, Flag };

/** One field of a kernel's parameter struct P: its name in JavaScript, its kind and where it goes. */
template <typename P>
struct ParamField {
  /** The name JavaScript passes. */
  const char* name;
  /** What it holds. */
  ParamKind kind;
  /** May be left out: the struct's default stays. */
  bool optional;
  /** Where a Dim goes. */
  int P::*dim;
  /** Where a Number goes. */
  double P::*number;
  /** Where a Flag goes. */
  bool P::*flag;
};

/** A required integer in [0, 2^31). */
template <typename P>
constexpr ParamField<P> Dim(const char* name, int P::*member) { return {name, ParamKind::Dim, false, member, nullptr, nullptr}; }
/** An optional integer in [0, 2^31); absent, the struct's default. */
template <typename P>
constexpr ParamField<P> OptionalDim(const char* name, int P::*member) { return {name, ParamKind::Dim, true, member, nullptr, nullptr}; }
/** A required number. */
template <typename P>
constexpr ParamField<P> Number(const char* name, double P::*member) { return {name, ParamKind::Number, false, nullptr, member, nullptr}; }
/** A required flag, 0 or 1. */
template <typename P>
constexpr ParamField<P> Flag(const char* name, bool P::*member) { return {name, ParamKind::Flag, false, nullptr, nullptr, member}; }
/** An optional flag, 0 or 1; absent, the struct's default. */
template <typename P>
constexpr ParamField<P> OptionalFlag(const char* name, bool P::*member) { return {name, ParamKind::Flag, true, nullptr, nullptr, member}; }

/** The kind's name in kernels(): 'dim', 'number' or 'flag', with '?' when optional. */
inline std::string KindName(ParamKind kind, bool optional) {
  const char* base = kind == ParamKind::Dim ? "dim" : kind == ParamKind::Number ? "number" : "flag";
  return std::string(base) + (optional ? "?" : "");
}

/** Decodes kernel `kernel`'s parameters into P by its field table; TANDEM_BAD_PARAMS on any mismatch. */
template <typename P, typename Fields>
P DecodeParams(const char* kernel, const Params& raw, const Fields& fields) {
  for (const std::string& name : raw.Names()) {
    bool known = false;
    for (const ParamField<P>& f : fields) known = known || name == f.name;
    if (!known) throw Failure("TANDEM_BAD_PARAMS", std::string(kernel) + ": unknown parameter '" + name + "'");
  }
  P p{};
  for (const ParamField<P>& f : fields) {
    if (!raw.Has(f.name)) {
      if (f.optional) continue;
      throw Failure("TANDEM_BAD_PARAMS", std::string(kernel) + ": missing parameter '" + f.name + "'");
    }
    const double v = raw.Get(f.name);
    if (f.kind == ParamKind::Dim) {
      if (!(v >= 0) || v > 2147483647.0 || std::floor(v) != v) throw Failure("TANDEM_BAD_PARAMS", std::string(kernel) + ": parameter '" + f.name + "' must be an integer in [0, 2^31)");
      p.*(f.dim) = static_cast<int>(v);
    } else if (f.kind == ParamKind::Flag) {
      if (v != 0 && v != 1) throw Failure("TANDEM_BAD_PARAMS", std::string(kernel) + ": parameter '" + f.name + "' must be 0 or 1");
      p.*(f.flag) = v == 1;
    } else {
      p.*(f.number) = v;
    }
  }
  return p;
}

}  // namespace tandem
