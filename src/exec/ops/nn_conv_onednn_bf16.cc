// The Conv kernels' oneDNN-bf16 numerics policy: when the precision emulator marks a Conv node
// with kOneDnnBf16Attr (exec/emulation_op.h; only uniform_bf16 does), its float32 path runs
// oneDNN's own bf16 convolution primitive the way PyTorch 1.13 does after
// model.to(torch.bfloat16) on the CPU (ideep: bf16 src / weights / dst, every layout left to
// oneDNN, prop_kind forward_training; ONEDNN_VERBOSE of a bf16 resnet18 / mobilenet_v2 forward
// shows jit_bf16, jit_bf16_1x1 and jit_dw:avx512_core_bf16 with dst bf16 and no post-ops). The
// same library (Debian's libdnnl 2.6.3, which python3-torch links too) then sums in the same
// order and rounds the fp32 accumulator to bf16 once, so npugap's bits equal PyTorch's; a plain
// fp32 convolution of the same bf16 inputs rounded afterwards differs in about 1e-4 of the
// elements (summation order), which compounds over 20 layers (docs/precision.md).
//
// The inputs are float32 tensors whose values the emulator has already rounded to bf16, so the
// f32 -> bf16 reorders are exact, and so is the bf16 -> f32 reorder of the result.
#include <memory>
#include <optional>
#include <unordered_map>

#include "dnnl_util.h"
#include "nn_conv_dnnl.h"
#include "nn_internal.h"
#include "npugap/exec/emulation_op.h"

namespace npugap::exec::nn {
namespace {

using dnnl::memory;
namespace du = dnnl_util;

struct Bf16ConvEntry : du::CacheEntry {
  dnnl::convolution_forward conv;
  memory::desc user_src, user_dst, user_weights, user_bias;  // float32, plain
  memory::desc src, dst, weights, bias;                      // bf16, the primitive's layouts
  dnnl::reorder src_reorder, dst_reorder;
  std::optional<dnnl::reorder> bias_reorder;
  du::PackedWeights packed;
};

Expected<std::shared_ptr<Bf16ConvEntry>> MakeBf16ConvEntry(const ConvGeometry& g, bool has_bias) {
  auto e = std::make_shared<Bf16ConvEntry>();
  const size_t rank = static_cast<size_t>(g.window.rank) + 2;
  const auto [src_dims, dst_dims, w_dims, strides, dilates, pad_l, pad_r] = ToDnnlConvDims(g);

  const auto f32 = memory::data_type::f32, bf16 = memory::data_type::bf16;
  const auto any = memory::format_tag::any;
  e->user_src = memory::desc(src_dims, f32, du::PlainTag(rank));
  e->user_dst = memory::desc(dst_dims, f32, du::PlainTag(rank));
  e->user_weights = memory::desc(w_dims, f32, du::PlainTag(w_dims.size()));
  e->user_bias = memory::desc({g.out_channels}, f32, memory::format_tag::a);
  const memory::desc src_any(src_dims, bf16, any), dst_any(dst_dims, bf16, any), w_any(w_dims, bf16, any);
  const memory::desc bias_md({g.out_channels}, bf16, memory::format_tag::a);
  const auto prop = dnnl::prop_kind::forward_training;  // what ideep asks for in eager mode
  const auto alg = dnnl::algorithm::convolution_direct;
  auto desc = has_bias ? dnnl::convolution_forward::desc(prop, alg, src_any, w_any, bias_md, dst_any, strides,
                                                         dilates, pad_l, pad_r)
                       : dnnl::convolution_forward::desc(prop, alg, src_any, w_any, dst_any, strides, dilates,
                                                         pad_l, pad_r);
  const dnnl::convolution_forward::primitive_desc pd(desc, du::Engine());
  e->conv = dnnl::convolution_forward(pd);
  e->src = pd.src_desc();
  e->dst = pd.dst_desc();
  e->weights = pd.weights_desc();
  e->src_reorder =
      dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), e->user_src, du::Engine(), e->src));
  e->dst_reorder =
      dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), e->dst, du::Engine(), e->user_dst));
  if (has_bias) {
    e->bias = pd.bias_desc();
    e->bias_reorder =
        dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), e->user_bias, du::Engine(), e->bias));
  }
  return e;
}

}  // namespace

bool OneDnnBf16Conv(const KernelContext& ctx) { return ctx.node.GetInt(kOneDnnBf16Attr, 0) != 0; }

Status OneDnnBf16ConvFloat(KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w,
                           const Tensor* b, Tensor& y) {
  return du::Guard(ctx, [&]() -> Status {
    // Kind 5: unique among the cache's users (1 conv, 2 conv transpose, 3 Gemm2d, 4 MatMul), so an
    // entry of one kernel is never cast to another's type.
    du::CacheKey key{&ctx.node, 5, {}};
    key.Add(x.shape());
    key.Add(w.shape());
    key.Add({g.group, b != nullptr});
    key.Add(std::vector<int64_t>(g.window.stride.begin(), g.window.stride.end()));
    key.Add(std::vector<int64_t>(g.window.dilation.begin(), g.window.dilation.end()));
    key.Add(std::vector<int64_t>(g.window.pad_begin.begin(), g.window.pad_begin.end()));
    key.Add(std::vector<int64_t>(g.window.pad_end.begin(), g.window.pad_end.end()));
    NPUGAP_ASSIGN_OR_RETURN(
        std::shared_ptr<Bf16ConvEntry> e,
        du::GetOrCreateAs<Bf16ConvEntry>(std::move(key), [&] { return MakeBf16ConvEntry(g, b != nullptr); }));
    dnnl::stream& stream = du::Stream();
    void* src_buffer = du::Scratch(0, e->src.get_size());
    void* dst_buffer = du::Scratch(1, e->dst.get_size());
    void* bias_buffer = b ? du::Scratch(2, e->bias.get_size()) : nullptr;
    if (src_buffer == nullptr || dst_buffer == nullptr || (b && bias_buffer == nullptr))
      return ctx.Error("out of memory");
    memory user_src = du::Wrap(e->user_src, x.raw_data());
    memory src(e->src, du::Engine(), src_buffer);
    e->src_reorder.execute(stream, user_src, src);
    memory dst(e->dst, du::Engine(), dst_buffer);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src},
                                         {DNNL_ARG_WEIGHTS, e->packed.Get(w, e->user_weights, e->weights)},
                                         {DNNL_ARG_DST, dst}};
    if (b != nullptr) {
      memory user_bias = du::Wrap(e->user_bias, b->raw_data());
      memory bias(e->bias, du::Engine(), bias_buffer);
      e->bias_reorder->execute(stream, user_bias, bias);
      args[DNNL_ARG_BIAS] = bias;
    }
    e->conv.execute(stream, args);
    memory user_dst = du::Wrap(e->user_dst, y.raw_data());
    e->dst_reorder.execute(stream, dst, user_dst);
    stream.wait();
    return Status::Ok();
  });
}

}  // namespace npugap::exec::nn

namespace npugap::exec {

bool OneDnnHasBf16Convolution() {
  // The same descriptor kind the kernel creates, on a small 1x1 geometry: oneDNN either has a bf16
  // convolution implementation for this CPU (a reference one at least, from AVX-512 on) or has none.
  static const bool has = [] {
    using dnnl::memory;
    const auto bf16 = memory::data_type::bf16;
    const auto any = memory::format_tag::any;
    const memory::desc src({1, 16, 4, 4}, bf16, any), weights({16, 16, 1, 1}, bf16, any),
        dst({1, 16, 4, 4}, bf16, any);
    try {
      const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training,
                                                 dnnl::algorithm::convolution_direct, src, weights, dst,
                                                 {1, 1}, {0, 0}, {0, 0});
      const dnnl::convolution_forward::primitive_desc pd(desc, dnnl_util::Engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

}  // namespace npugap::exec
