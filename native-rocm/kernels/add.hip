// add: out[i] = a[i] + b[i % bCount] (b the same shape as a, or a suffix of it), f32 and f16 (computed in f32,
// rounded to nearest even). Grid-stride, one element per step.
#include "elementwise.h"

namespace tandem {
namespace {

struct Add {
  __device__ float operator()(float x, float y) const { return x + y; }
};

[[maybe_unused]] const bool kRegistered = RegisterBinary<Add>("add_f32", "add_f16");

}  // namespace
}  // namespace tandem
