// op_table.cc: the table of native kernels. Each entry decodes its parameters, states the bytes every buffer
// needs (the addon refuses a run whose buffers are smaller, so a wrong call fails instead of corrupting memory)
// and calls its launcher in kernels/.
#include "op_table.h"

namespace tandem {
namespace {

constexpr double kF32 = 4;
constexpr double kF16 = 2;
constexpr double kQ8Block = 34;
constexpr double kQ4Block = 18;

template <typename T>
const T* in(const OpCall& c, int i) { return static_cast<const T*>(c.inputs[i]); }
template <typename T>
T* out(const OpCall& c, int i) { return static_cast<T*>(c.outputs[i]); }

double count_of(const Params& p) { return p.Dim("count"); }

int k_multiple_of_32(const Params& p) {
  const int k = p.Dim("k");
  if (k % 32 != 0) throw Failure("TANDEM_BAD_PARAMS", "parameter 'k' must be a multiple of 32");
  return k;
}

int count_multiple_of_32(const Params& p) {
  const int n = p.Dim("count");
  if (n % 32 != 0) throw Failure("TANDEM_BAD_PARAMS", "parameter 'count' must be a multiple of 32");
  return n;
}

std::vector<double> binary_sizes(const Params& p, double elem) {
  const double n = p.Dim("count");
  const double b = p.Dim("bCount");
  if (n > 0 && (b == 0 || static_cast<long long>(n) % static_cast<long long>(b) != 0)) throw Failure("TANDEM_BAD_PARAMS", "'bCount' must divide 'count'");
  return {n * elem, b * elem, n * elem};
}

/** quantized_matmul_*: the f32 path, or with q8Activations = 1 the int8-activation one (quantized_matmul_q8act.hip). */
hipError_t quantized_launch(const OpCall& c, QuantFormat format) {
  const Params& p = *c.params;
  const int m = p.Dim("m"), n = p.Dim("n"), k = p.Dim("k");
  if (p.DimOr("q8Activations", 0) != 0) {
    return launch_quantized_matvec_q8act(*c.ctx, in<float>(c, 0), in<uint8_t>(c, 1), out<float>(c, 0), m, n, k, format, p.DimOr("variant", kQuantizedQ8ActDefaultVariant) % kQuantizedQ8ActVariants);
  }
  return launch_quantized_matmul(*c.ctx, in<float>(c, 0), in<uint8_t>(c, 1), out<float>(c, 0), m, n, k, format, p.DimOr("variant", kQuantizedDefaultVariant) % kQuantizedVariants);
}

/** concat along axis 0: a's bytes then b's, device-to-device copies on the backend's stream (no kernel). */
hipError_t concat_launch(const OpCall& c) {
  const Params& p = *c.params;
  const size_t elem = static_cast<size_t>(p.Dim("elemBytes"));
  const size_t aBytes = static_cast<size_t>(p.Dim("aCount")) * elem;
  const size_t bBytes = static_cast<size_t>(p.Dim("bCount")) * elem;
  char* dst = out<char>(c, 0);
  if (aBytes > 0) {
    const hipError_t err = hipMemcpyAsync(dst, c.inputs[0], aBytes, hipMemcpyDeviceToDevice, c.ctx->stream);
    if (err != hipSuccess) return err;
  }
  if (bBytes > 0) return hipMemcpyAsync(dst + aBytes, c.inputs[1], bBytes, hipMemcpyDeviceToDevice, c.ctx->stream);
  return hipSuccess;
}

hipError_t binary_launch(const OpCall& c, BinaryKind kind, ElemType type) {
  return launch_binary(*c.ctx, kind, type, c.inputs[0], c.inputs[1], c.outputs[0], c.params->Dim("count"), c.params->Dim("bCount"));
}

const std::vector<OpDef>& table() {
  static const std::vector<OpDef> defs = {
      {"matmul_f32", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double m = p.Dim("m"), n = p.Dim("n"), k = p.Dim("k");
         return {m * k * kF32, k * n * kF32, m * n * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_matmul_f32(*c.ctx, in<float>(c, 0), in<float>(c, 1), out<float>(c, 0), p.Dim("m"), p.Dim("n"), p.Dim("k"), false, p.DimOr("variant", kMatmulDefaultVariant) % kMatmulVariants);
       }},
      {"matmul_f16", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double m = p.Dim("m"), n = p.Dim("n"), k = p.Dim("k");
         return {m * k * kF16, k * n * kF16, m * n * kF16};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_matmul_f16(*c.ctx, in<uint16_t>(c, 0), in<uint16_t>(c, 1), out<uint16_t>(c, 0), p.Dim("m"), p.Dim("n"), p.Dim("k"));
       }},
      {"quantized_matmul_q8_0", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double m = p.Dim("m"), n = p.Dim("n"), k = k_multiple_of_32(p);
         return {m * k * kF32, n * (k / 32) * kQ8Block, m * n * kF32};
       },
       [](const OpCall& c) { return quantized_launch(c, QuantFormat::Q8_0); }},
      {"quantized_matmul_q4_0", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double m = p.Dim("m"), n = p.Dim("n"), k = k_multiple_of_32(p);
         return {m * k * kF32, n * (k / 32) * kQ4Block, m * n * kF32};
       },
       [](const OpCall& c) { return quantized_launch(c, QuantFormat::Q4_0); }},
      {"dequantize_q8_0", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double n = count_multiple_of_32(p);
         return {(n / 32) * kQ8Block, n * kF32};
       },
       [](const OpCall& c) { return launch_dequantize(*c.ctx, c.inputs[0], out<float>(c, 0), c.params->Dim("count"), QuantFormat::Q8_0); }},
      {"dequantize_q4_0", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double n = count_multiple_of_32(p);
         return {(n / 32) * kQ4Block, n * kF32};
       },
       [](const OpCall& c) { return launch_dequantize(*c.ctx, c.inputs[0], out<float>(c, 0), c.params->Dim("count"), QuantFormat::Q4_0); }},
      {"dequantize_f16", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> { return {count_of(p) * kF16, count_of(p) * kF32}; },
       [](const OpCall& c) { return launch_dequantize(*c.ctx, c.inputs[0], out<float>(c, 0), c.params->Dim("count"), QuantFormat::F16); }},
      {"add_f32", 2, 2, 1, [](const Params& p, int) { return binary_sizes(p, kF32); },
       [](const OpCall& c) { return binary_launch(c, BinaryKind::Add, ElemType::F32); }},
      {"add_f16", 2, 2, 1, [](const Params& p, int) { return binary_sizes(p, kF16); },
       [](const OpCall& c) { return binary_launch(c, BinaryKind::Add, ElemType::F16); }},
      {"mul_f32", 2, 2, 1, [](const Params& p, int) { return binary_sizes(p, kF32); },
       [](const OpCall& c) { return binary_launch(c, BinaryKind::Mul, ElemType::F32); }},
      {"mul_f16", 2, 2, 1, [](const Params& p, int) { return binary_sizes(p, kF16); },
       [](const OpCall& c) { return binary_launch(c, BinaryKind::Mul, ElemType::F16); }},
      {"scale_f32", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> { p.Num("factor"); return {count_of(p) * kF32, count_of(p) * kF32}; },
       [](const OpCall& c) { return launch_scale(*c.ctx, ElemType::F32, c.inputs[0], c.outputs[0], c.params->Dim("count"), static_cast<float>(c.params->Num("factor"))); }},
      {"scale_f16", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> { p.Num("factor"); return {count_of(p) * kF16, count_of(p) * kF16}; },
       [](const OpCall& c) { return launch_scale(*c.ctx, ElemType::F16, c.inputs[0], c.outputs[0], c.params->Dim("count"), static_cast<float>(c.params->Num("factor"))); }},
      {"silu_f32", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> { return {count_of(p) * kF32, count_of(p) * kF32}; },
       [](const OpCall& c) { return launch_silu(*c.ctx, in<float>(c, 0), out<float>(c, 0), c.params->Dim("count")); }},
      {"swiglu_f32", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> { return {count_of(p) * kF32, count_of(p) * kF32, count_of(p) * kF32}; },
       [](const OpCall& c) { return launch_swiglu(*c.ctx, in<float>(c, 0), in<float>(c, 1), out<float>(c, 0), c.params->Dim("count")); }},
      {"softmax_f32", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double n = static_cast<double>(p.Dim("rows")) * p.Dim("cols");
         p.Dim("causalRows");
         return {n * kF32, n * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_softmax(*c.ctx, in<float>(c, 0), out<float>(c, 0), p.Dim("rows"), p.Dim("cols"), p.Dim("causalRows"));
       }},
      {"rms_norm_f32", 1, 2, 1,
       [](const Params& p, int inputs) -> std::vector<double> {
         const double n = p.Dim("n");
         const double total = static_cast<double>(p.Dim("rows")) * n;
         p.Num("eps");
         if (inputs == 2) return {total * kF32, n * kF32, total * kF32};
         return {total * kF32, total * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         const float* weight = c.inputs.size() > 1 ? in<float>(c, 1) : nullptr;
         return launch_rms_norm(*c.ctx, in<float>(c, 0), weight, out<float>(c, 0), p.Dim("rows"), p.Dim("n"), static_cast<float>(p.Num("eps")));
       }},
      {"rope_f32", 1, 1, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double n = static_cast<double>(p.Dim("seq")) * p.Dim("heads") * p.Dim("headDim");
         if (p.Dim("headDim") % 2 != 0) throw Failure("TANDEM_BAD_PARAMS", "parameter 'headDim' must be even");
         p.Num("positionOffset");
         p.Num("base");
         p.Num("neox");
         return {n * kF32, n * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_rope(*c.ctx, in<float>(c, 0), out<float>(c, 0), p.Dim("seq"), p.Dim("heads"), p.Dim("headDim"), static_cast<long long>(p.Num("positionOffset")), p.Num("base"), p.Num("neox") != 0);
       }},
      {"attention_f32", 3, 3, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double d = p.Dim("headDim");
         const double qn = static_cast<double>(p.Dim("sq")) * p.Dim("heads") * d;
         const double kn = static_cast<double>(p.Dim("sk")) * p.Dim("kvHeads") * d;
         if (p.Dim("kvHeads") == 0 || p.Dim("heads") % p.Dim("kvHeads") != 0) throw Failure("TANDEM_BAD_PARAMS", "'kvHeads' must divide 'heads'");
         if (p.Dim("causal") != 0 && p.Dim("sq") > p.Dim("sk")) throw Failure("TANDEM_BAD_PARAMS", "causal attention needs sq <= sk");
         p.Num("scale");
         return {qn * kF32, kn * kF32, kn * kF32, qn * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_attention(*c.ctx, in<float>(c, 0), in<float>(c, 1), in<float>(c, 2), out<float>(c, 0), p.Dim("sq"), p.Dim("sk"), p.Dim("heads"), p.Dim("kvHeads"), p.Dim("headDim"), p.Dim("causal") != 0, static_cast<float>(p.Num("scale")));
       }},
      {"cosine_similarity_f32", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double q = p.Dim("queries"), t = p.Dim("targets"), d = p.Dim("dim");
         return {q * d * kF32, t * d * kF32, q * t * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_cosine_similarity(*c.ctx, in<float>(c, 0), in<float>(c, 1), out<float>(c, 0), p.Dim("queries"), p.Dim("targets"), p.Dim("dim"));
       }},
      {"top_k_f32", 1, 1, 2,
       [](const Params& p, int) -> std::vector<double> {
         const double rows = p.Dim("rows"), n = p.Dim("n"), k = p.Dim("k");
         if (k < 1 || k > n || k > kTopKMax) throw Failure("TANDEM_BAD_PARAMS", "parameter 'k' must be in [1, min(n, " + std::to_string(kTopKMax) + ")]");
         return {rows * n * kF32, rows * k * kF32, rows * k * 4};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_top_k(*c.ctx, in<float>(c, 0), out<float>(c, 0), out<int32_t>(c, 1), p.Dim("rows"), p.Dim("n"), p.Dim("k"));
       }},
      {"spread_activation", 4, 4, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double nodes = p.Dim("nodes"), edges = p.Dim("edges");
         p.Num("decay");
         p.Num("threshold");
         p.Dim("iterations");
         return {(nodes + 1) * 4, edges * 4, edges * kF32, nodes * kF32, nodes * kF32};
       },
       [](const OpCall& c) {
         const Params& p = *c.params;
         return launch_spread_activation(*c.ctx, in<uint32_t>(c, 0), in<uint32_t>(c, 1), in<float>(c, 2), in<float>(c, 3), out<float>(c, 0), p.Dim("nodes"), p.Dim("edges"), static_cast<float>(p.Num("decay")), static_cast<float>(p.Num("threshold")), p.Dim("iterations"));
       }},
      {"concat", 2, 2, 1,
       [](const Params& p, int) -> std::vector<double> {
         const double elem = p.Dim("elemBytes");
         if (elem != 2 && elem != 4) throw Failure("TANDEM_BAD_PARAMS", "parameter 'elemBytes' must be 2 or 4");
         const double a = p.Dim("aCount") * elem, b = p.Dim("bCount") * elem;
         return {a, b, a + b};
       },
       concat_launch},
  };
  return defs;
}

}  // namespace

const OpDef* FindOp(const std::string& name) {
  for (const OpDef& def : table()) {
    if (name == def.name) return &def;
  }
  return nullptr;
}

std::vector<std::string> OpNames() {
  std::vector<std::string> names;
  for (const OpDef& def : table()) names.emplace_back(def.name);
  return names;
}

}  // namespace tandem
