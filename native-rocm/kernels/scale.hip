// scale: out[i] = x[i] * factor, f32 and f16 (computed in f32, rounded to nearest even). Grid-stride.
#include "elementwise.h"

namespace tandem {
namespace {

/** Parameters of scale_*. */
struct ScaleParams {
  int count = 0;
  double factor = 1;
};

constexpr std::array<ParamField<ScaleParams>, 2> kScaleFields{{Dim("count", &ScaleParams::count), Number("factor", &ScaleParams::factor)}};

template <typename T>
__global__ void scale_kernel(const T* __restrict__ x, T* __restrict__ out, long long count, float factor) {
  TANDEM_GRID_STRIDE(i, count) { store_elem(out, i, load_elem(x, i) * factor); }
}

template <typename T>
std::vector<double> scale_sizes(const ScaleParams& p, int) {
  return {p.count * elem_bytes<T>(), p.count * elem_bytes<T>()};
}

template <typename T>
hipError_t scale_launch(const OpCall& c, const ScaleParams& p) {
  if (p.count == 0) return hipSuccess;
  scale_kernel<T><<<grid_for(p.count, c.ctx->multiProcessors), kBlock, 0, c.ctx->stream>>>(input<T>(c, 0), output<T>(c, 0), p.count, static_cast<float>(p.factor));
  return hipGetLastError();
}

[[maybe_unused]] const bool kF32 = Register(KernelDefinition<ScaleParams, 2>{"scale_f32", 1, 1, 1, kScaleFields, scale_sizes<float>, scale_launch<float>});
[[maybe_unused]] const bool kF16 = Register(KernelDefinition<ScaleParams, 2>{"scale_f16", 1, 1, 1, kScaleFields, scale_sizes<uint16_t>, scale_launch<uint16_t>});

}  // namespace
}  // namespace tandem
