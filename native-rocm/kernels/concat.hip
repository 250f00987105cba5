// concat along axis 0: a's bytes then b's, device-to-device copies on the backend's stream (no kernel). Element
// counts, not bytes, cross from JavaScript: bytes may pass 2^31.
#include <array>
#include "../src/kernel_registry.h"
#include "kernels.h"

namespace tandem {
namespace {

/** Parameters of concat: aCount then bCount elements of elemBytes (2 or 4) each. */
struct ConcatParams {
  int aCount = 0;
  int bCount = 0;
  int elemBytes = 4;
};

constexpr std::array<ParamField<ConcatParams>, 3> kFields{{Dim("aCount", &ConcatParams::aCount), Dim("bCount", &ConcatParams::bCount), Dim("elemBytes", &ConcatParams::elemBytes)}};

std::vector<double> concat_sizes(const ConcatParams& p, int) {
  if (p.elemBytes != 2 && p.elemBytes != 4) throw Failure("TANDEM_BAD_PARAMS", "parameter 'elemBytes' must be 2 or 4");
  const double a = static_cast<double>(p.aCount) * p.elemBytes, b = static_cast<double>(p.bCount) * p.elemBytes;
  return {a, b, a + b};
}

hipError_t concat_launch(const OpCall& c, const ConcatParams& p) {
  const size_t elem = static_cast<size_t>(p.elemBytes);
  const size_t aBytes = static_cast<size_t>(p.aCount) * elem;
  const size_t bBytes = static_cast<size_t>(p.bCount) * elem;
  char* dst = output<char>(c, 0);
  if (aBytes > 0) {
    const hipError_t err = hipMemcpyAsync(dst, c.inputs[0], aBytes, hipMemcpyDeviceToDevice, c.ctx->stream);
    if (err != hipSuccess) return err;
  }
  if (bBytes > 0) return hipMemcpyAsync(dst + aBytes, c.inputs[1], bBytes, hipMemcpyDeviceToDevice, c.ctx->stream);
  return hipSuccess;
}

[[maybe_unused]] const bool kRegistered = Register(KernelDefinition<ConcatParams, 3>{"concat", 2, 2, 1, kFields, concat_sizes, concat_launch});

}  // namespace
}  // namespace tandem
