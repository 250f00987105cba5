// gelu: out[i] = gelu(x[i]), tanh approximation, as x / (1 + e^(-2u)) with u = sqrt(2/pi) (x + 0.044715 x^3) (the
// same value: 0.5 (1 + tanh(u)) = sigmoid(2u), without 1 + tanh(u) cancelling to 0 in the negative tail); f32 and
// f16 (computed in f32, rounded to nearest even). expf, not the fast intrinsic.
#include "elementwise.h"

namespace tandem {
namespace {

struct Gelu {
  __device__ float operator()(float v) const {
    const float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    return v / (1.0f + expf(-2.0f * u));
  }
};

[[maybe_unused]] const bool kRegistered = RegisterUnary<Gelu>("gelu_f32", "gelu_f16");

}  // namespace
}  // namespace tandem
