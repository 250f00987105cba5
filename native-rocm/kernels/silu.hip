// silu: out[i] = x[i] * sigmoid(x[i]) = x[i] / (1 + e^-x[i]), f32. expf, not the fast intrinsic, to stay within 2 ulp.
#include "elementwise.h"

namespace tandem {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterUnary<Silu>("silu_f32");

}  // namespace
}  // namespace tandem
