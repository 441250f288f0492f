// Conv, ConvTranspose and com.microsoft FusedConv.
//
// float32 runs on oneDNN (weights pre-packed once per model through the dnnl_util cache) or,
// for depthwise 2-D convolutions, on a direct NCHW kernel here; float64 and whatever oneDNN
// rejects run on the reference loops of nn_internal.h; float16 / bfloat16 are computed in
// float32 and rounded back.
//
// Activation layouts (the kernel boundary is plain NCHW). Measured on this machine (AVX-512,
// oneDNN 2.6, 1 thread, batch 1, ms; "any" lets oneDNN choose, which is NHWC here):
//   layer                    any   any+reorders  nChw16c  +reorders  nchw (gemm:jit)
//   7x7s2 3->64 @224        1.46      1.71          -        -         5.6 / 10.1
//   1x1 64->256 @56         0.81      1.36        0.91     1.24        0.92 / 1.13
//   3x3 64->64 @56          1.36      1.78        1.31     1.42        2.6
//   3x3 256->256 @14        1.24      1.31        1.30     1.32        1.85 / 2.04
//   1x1 1024->256 @14       0.59      0.79        0.61     0.66        0.66 / 0.68
//   dw3x3 144 @56           0.165     0.68        0.147    0.42        3.0
// Reordering NCHW <-> nChw16c costs about a memcpy, NCHW <-> NHWC two to three times that. So:
// spatial convolutions take nChw16c in and out (the source stays NCHW when it has few channels,
// where oneDNN's first-layer kernels read NCHW directly); 1x1 stride-1 convolutions stay NCHW
// (a plain GEMM, no reorder) when the image is large and use nChw16c when it is small;
// depthwise 2-D convolutions use the direct kernel below (about 0.2 ms for dw3x3 144 @56).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include "dnnl_util.h"
#include "nn_internal.h"

namespace npugap::exec::nn {
namespace {

using dnnl::memory;
namespace du = dnnl_util;

// ---- activations fused into a convolution (FusedConv) ----------------------------------------

void AppendActivation(const Activation& act, dnnl::post_ops& ops) {
  using alg = dnnl::algorithm;
  switch (act.kind) {
    case Activation::Kind::kNone: break;
    case Activation::Kind::kRelu: ops.append_eltwise(1.f, alg::eltwise_relu, 0.f, 0.f); break;
    case Activation::Kind::kLeakyRelu: ops.append_eltwise(1.f, alg::eltwise_relu, act.alpha, 0.f); break;
    case Activation::Kind::kClip: ops.append_eltwise(1.f, alg::eltwise_clip, act.alpha, act.beta); break;
    case Activation::Kind::kSigmoid: ops.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f); break;
    case Activation::Kind::kTanh: ops.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f); break;
  }
}

// ---- direct depthwise 2-D convolution ---------------------------------------------------------

bool IsDepthwise2d(const ConvGeometry& g) {
  return g.window.rank == 2 && g.group == g.in_channels && g.out_channels == g.in_channels && g.group > 1;
}

// Applies the activation to a row; the switch sits outside the loops so they vectorise.
void ActivateRow(const Activation& act, float* y, int64_t n) {
  switch (act.kind) {
    case Activation::Kind::kNone: return;
    case Activation::Kind::kRelu:
      for (int64_t i = 0; i < n; ++i) y[i] = std::max(y[i], 0.f);
      return;
    case Activation::Kind::kClip:
      for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(y[i], act.alpha), act.beta);
      return;
    default:
      for (int64_t i = 0; i < n; ++i) y[i] = act.Apply(y[i]);
  }
}

// One output plane: rows of the zero-padded input plane are read with compile-time kernel
// size and stride, so the ow loop vectorises. KH == 0 means "runtime sizes".
template <int KH, int KW, int S>
void DepthwisePlane(const Window& win, const float* __restrict padded, int64_t padded_w, const float* w,
                    float bias, const Activation& act, float* __restrict y) {
  const int64_t out_w = win.out[2];
  if constexpr (KH != 0) {
    float wk[KH * KW];
    for (int i = 0; i < KH * KW; ++i) wk[i] = w[i];
    for (int64_t oh = 0; oh < win.out[1]; ++oh) {
      float* __restrict yr = y + oh * out_w;
      const float* __restrict top = padded + oh * S * padded_w;
      for (int64_t ow = 0; ow < out_w; ++ow) {
        float acc = bias;
        for (int kh = 0; kh < KH; ++kh) {
          for (int kw = 0; kw < KW; ++kw) acc += wk[kh * KW + kw] * top[kh * padded_w + ow * S + kw];
        }
        yr[ow] = acc;
      }
      ActivateRow(act, yr, out_w);
    }
  } else {
    const int64_t kh_n = win.kernel[1], kw_n = win.kernel[2];
    const int64_t sh = win.stride[1], sw = win.stride[2], dh = win.dilation[1], dw = win.dilation[2];
    for (int64_t oh = 0; oh < win.out[1]; ++oh) {
      float* __restrict yr = y + oh * out_w;
      const float* top = padded + oh * sh * padded_w;
      for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] = bias;
      for (int64_t kh = 0; kh < kh_n; ++kh) {
        for (int64_t kw = 0; kw < kw_n; ++kw) {
          const float wv = w[kh * kw_n + kw];
          const float* __restrict xr = top + kh * dh * padded_w + kw * dw;
          for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] += wv * xr[ow * sw];
        }
      }
      ActivateRow(act, yr, out_w);
    }
  }
}

// Returns false when a thread's padded-plane buffer cannot be allocated.
bool DepthwiseConv2d(const ConvGeometry& g, const float* x, const float* w, const float* b,
                     const Activation& act, float* y) {
  const Window& win = g.window;
  const int64_t ph = win.pad_begin[1], pw = win.pad_begin[2];
  // Rows / columns of the padded plane that any window reads.
  const int64_t rows = (win.out[1] - 1) * win.stride[1] + (win.kernel[1] - 1) * win.dilation[1] + 1;
  const int64_t cols = (win.out[2] - 1) * win.stride[2] + (win.kernel[2] - 1) * win.dilation[2] + 1;
  const bool unit_dilation = win.dilation[1] == 1 && win.dilation[2] == 1;
  const bool k3 = unit_dilation && win.kernel[1] == 3 && win.kernel[2] == 3;
  const bool k5 = unit_dilation && win.kernel[1] == 5 && win.kernel[2] == 5;
  const bool s1 = win.stride[1] == 1 && win.stride[2] == 1, s2 = win.stride[1] == 2 && win.stride[2] == 2;
  std::atomic<bool> ok{true};
  ParallelFor(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    float* padded = static_cast<float*>(du::Scratch(2, static_cast<size_t>(rows * cols) * sizeof(float)));
    if (padded == nullptr) {
      ok = false;
      return;
    }
    for (int64_t nc = begin; nc < end; ++nc) {
      const int64_t c = nc % g.out_channels;
      const float* xp = x + nc * win.in[1] * win.in[2];
      for (int64_t r = 0; r < rows; ++r) {
        float* dst = padded + r * cols;
        const int64_t ih = r - ph;
        if (ih < 0 || ih >= win.in[1]) {
          std::fill(dst, dst + cols, 0.f);
          continue;
        }
        const int64_t lo = std::min(cols, pw), hi = std::clamp<int64_t>(win.in[2] + pw, lo, cols);
        std::fill(dst, dst + lo, 0.f);
        std::memcpy(dst + lo, xp + ih * win.in[2] + (lo - pw), static_cast<size_t>(hi - lo) * sizeof(float));
        std::fill(dst + hi, dst + cols, 0.f);
      }
      const float* wc = w + c * win.kernel[1] * win.kernel[2];
      const float bias = b ? b[c] : 0.f;
      float* yp = y + nc * win.out_size();
      if (k3 && s1) {
        DepthwisePlane<3, 3, 1>(win, padded, cols, wc, bias, act, yp);
      } else if (k3 && s2) {
        DepthwisePlane<3, 3, 2>(win, padded, cols, wc, bias, act, yp);
      } else if (k5 && s1) {
        DepthwisePlane<5, 5, 1>(win, padded, cols, wc, bias, act, yp);
      } else if (k5 && s2) {
        DepthwisePlane<5, 5, 2>(win, padded, cols, wc, bias, act, yp);
      } else {
        DepthwisePlane<0, 0, 0>(win, padded, cols, wc, bias, act, yp);
      }
    }
  });
  return ok;
}

// ---- oneDNN convolution -----------------------------------------------------------------------

struct ConvEntry : du::CacheEntry {
  dnnl::convolution_forward conv;
  memory::desc user_src, user_dst, user_weights, bias;
  memory::desc src, dst, weights;  // what the primitive wants
  std::optional<dnnl::reorder> src_reorder, dst_reorder;
  du::PackedWeights packed;
};

// The activation layouts for this geometry; see the measurements at the top of the file.
std::pair<memory::format_tag, memory::format_tag> ChooseConvLayouts(const ConvGeometry& g) {
  const Window& win = g.window;
  const size_t rank = static_cast<size_t>(win.rank) + 2;
  const memory::format_tag plain = du::PlainTag(rank), blocked = du::Blocked16Tag(rank);
  const bool pointwise = win.kernel_size() == 1 && win.stride == Axes{1, 1, 1} && !win.has_padding();
  if (g.in_channels < 16 && g.out_channels < 16) return {plain, plain};
  if (pointwise && g.group == 1 && win.out_size() >= 28 * 28) return {plain, plain};
  return {g.in_channels < 16 ? plain : blocked, blocked};
}

Expected<std::shared_ptr<ConvEntry>> MakeConvEntry(const ConvGeometry& g, bool has_bias, const Activation& act,
                                                   bool has_sum) {
  auto entry = std::make_shared<ConvEntry>();
  const Window& win = g.window;
  const size_t rank = static_cast<size_t>(win.rank) + 2;
  memory::dims src_dims{g.batch, g.in_channels}, dst_dims{g.batch, g.out_channels}, w_dims;
  for (int64_t v : win.Real(win.in)) src_dims.push_back(v);
  for (int64_t v : win.Real(win.out)) dst_dims.push_back(v);
  if (g.group > 1) w_dims = {g.group, g.out_per_group(), g.in_per_group()};
  else w_dims = {g.out_channels, g.in_channels};
  for (int64_t v : win.Real(win.kernel)) w_dims.push_back(v);
  memory::dims strides = win.Real(win.stride), dilates = win.Real(win.dilation);
  for (auto& d : dilates) d -= 1;  // oneDNN counts the gaps
  memory::dims pad_l = win.Real(win.pad_begin), pad_r = win.Real(win.pad_end);

  const auto f32 = memory::data_type::f32;
  entry->user_src = memory::desc(src_dims, f32, du::PlainTag(rank));
  entry->user_dst = memory::desc(dst_dims, f32, du::PlainTag(rank));
  entry->user_weights = memory::desc(w_dims, f32, du::PlainTag(w_dims.size()));
  entry->bias = memory::desc({g.out_channels}, f32, memory::format_tag::a);
  const auto [src_tag, dst_tag] = ChooseConvLayouts(g);
  const memory::desc src_any(src_dims, f32, src_tag), dst_any(dst_dims, f32, dst_tag),
      w_any(w_dims, f32, memory::format_tag::any);

  dnnl::primitive_attr attr;
  dnnl::post_ops ops;
  if (has_sum) ops.append_sum(1.f);
  AppendActivation(act, ops);
  attr.set_post_ops(ops);
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  auto desc = has_bias ? dnnl::convolution_forward::desc(prop, alg, src_any, w_any, entry->bias, dst_any, strides,
                                                         dilates, pad_l, pad_r)
                       : dnnl::convolution_forward::desc(prop, alg, src_any, w_any, dst_any, strides, dilates,
                                                         pad_l, pad_r);
  dnnl::convolution_forward::primitive_desc pd(desc, attr, du::Engine());
  entry->conv = dnnl::convolution_forward(pd);
  entry->src = pd.src_desc();
  entry->dst = pd.dst_desc();
  entry->weights = pd.weights_desc();
  if (entry->src != entry->user_src) {
    entry->src_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), entry->user_src, du::Engine(),
                                                                     entry->src));
  }
  if (entry->dst != entry->user_dst) {
    entry->dst_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), entry->dst, du::Engine(),
                                                                     entry->user_dst));
  }
  return entry;
}

// y = act(conv(x, w) + b + z) on oneDNN. Returns an "unimplemented" status (see
// dnnl_util::IsUnimplemented) when oneDNN cannot run this geometry.
Status DnnlConv(KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* b,
                const Tensor* z, const Activation& act, Tensor& y) {
  return du::Guard(ctx, [&]() -> Status {
    du::CacheKey key{&ctx.node, 1, {}};
    key.Add(x.shape());
    key.Add(w.shape());
    key.Add({g.group, b != nullptr, z != nullptr, static_cast<int64_t>(act.kind)});
    key.Add(std::vector<int64_t>(g.window.stride.begin(), g.window.stride.end()));
    key.Add(std::vector<int64_t>(g.window.dilation.begin(), g.window.dilation.end()));
    key.Add(std::vector<int64_t>(g.window.pad_begin.begin(), g.window.pad_begin.end()));
    key.Add(std::vector<int64_t>(g.window.pad_end.begin(), g.window.pad_end.end()));
    key.Add({static_cast<int64_t>(std::bit_cast<uint32_t>(act.alpha)),
             static_cast<int64_t>(std::bit_cast<uint32_t>(act.beta))});
    NPUGAP_ASSIGN_OR_RETURN(std::shared_ptr<ConvEntry> e, du::GetOrCreateAs<ConvEntry>(std::move(key), [&] {
                              return MakeConvEntry(g, b != nullptr, act, z != nullptr);
                            }));
    dnnl::stream& stream = du::Stream();
    memory user_src = du::Wrap(e->user_src, x.raw_data());
    memory src = user_src;
    const void* src_buffer = e->src_reorder ? du::Scratch(0, e->src.get_size()) : x.raw_data();
    void* dst_buffer = e->dst_reorder ? du::Scratch(1, e->dst.get_size()) : y.raw_data();
    if (src_buffer == nullptr || dst_buffer == nullptr) return ctx.Error("out of memory");
    if (e->src_reorder) {
      src = memory(e->src, du::Engine(), const_cast<void*>(src_buffer));
      e->src_reorder->execute(stream, user_src, src);
    }
    memory user_dst = du::Wrap(e->user_dst, y.raw_data());
    memory dst = user_dst;
    if (e->dst_reorder) dst = memory(e->dst, du::Engine(), dst_buffer);
    if (z != nullptr) {  // the sum post-op adds what dst holds
      memory user_z = du::Wrap(e->user_dst, z->raw_data());
      dnnl::reorder(user_z, dst).execute(stream, user_z, dst);
    }
    memory weights = e->packed.Get(w, e->user_weights, e->weights);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (b != nullptr) args[DNNL_ARG_BIAS] = du::Wrap(e->bias, b->raw_data());
    e->conv.execute(stream, args);
    if (e->dst_reorder) e->dst_reorder->execute(stream, dst, user_dst);
    stream.wait();
    return Status::Ok();
  });
}

// float32 convolution: direct depthwise kernel, oneDNN, or the reference loops.
Status ConvFloat(KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* b,
                 const Tensor* z, const Activation& act, Tensor& y) {
  if (IsDepthwise2d(g) && z == nullptr && !getenv("NN_NO_DW")) {
    if (!DepthwiseConv2d(g, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, act, y.data<float>())) {
      return ctx.Error("out of memory");
    }
    return Status::Ok();
  }
  Status s = DnnlConv(ctx, g, x, w, b, z, act, y);
  if (!du::IsUnimplemented(s)) return s;
  const float* bias = b ? b->data<float>() : nullptr;
  const float* zd = z ? z->data<float>() : nullptr;
  const int64_t out_size = g.window.out_size();
  float* yd = y.data<float>();
  ReferenceConv<float, float, float>(g, x.data<float>(), w.data<float>(), 0.f, nullptr, yd,
                                     [](int64_t, float acc) { return acc; });
  ParallelFor(y.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float v = yd[i] + (bias ? bias[(i / out_size) % g.out_channels] : 0.f) + (zd ? zd[i] : 0.f);
      yd[i] = act.Apply(v);
    }
  });
  return Status::Ok();
}

// Shared by Conv and FusedConv: checks inputs, allocates Y and picks the dtype path.
Status RunConv(KernelContext& ctx, const Activation& act) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("needs inputs X and W");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* z = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (w.dtype() != x.dtype() || (b && b->dtype() != x.dtype()) || (z && z->dtype() != x.dtype())) {
    return ctx.Error("inputs must share one element type");
  }
  NPUGAP_ASSIGN_OR_RETURN(ConvGeometry g, ResolveConv(ctx, x.shape(), w.shape()));
  if (b && (b->rank() != 1 || b->dim(0) != g.out_channels)) {
    return ctx.Error("bias B has shape " + ir::ShapeToString(b->shape()) + ", expected " +
                     std::to_string(g.out_channels));
  }
  const Shape y_shape = ConvOutputShape(g);
  if (z && z->shape() != y_shape) return ctx.Error("Z must have the output shape " + ir::ShapeToString(y_shape));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), y_shape));
  if (y.numel() == 0) {
    ctx.outputs[0] = std::move(y);
    return Status::Ok();
  }
  if (x.dtype() == DType::kFloat32) {
    NPUGAP_RETURN_IF_ERROR(ConvFloat(ctx, g, x, w, b, z, act, y));
  } else if (x.dtype() == DType::kFloat64) {
    const double* bias = b ? b->data<double>() : nullptr;
    const double* zd = z ? z->data<double>() : nullptr;
    double* yd = y.data<double>();
    ReferenceConv<double, double, double>(g, x.data<double>(), w.data<double>(), 0.0, nullptr, yd,
                                          [&](int64_t m, double acc) { return acc + (bias ? bias[m] : 0.0); });
    for (int64_t i = 0; i < y.numel(); ++i) yd[i] = act.Apply(yd[i] + (zd ? zd[i] : 0.0));
  } else if (x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16) {
    const Tensor xf = ToFloat32(x), wf = ToFloat32(w);
    std::optional<Tensor> bf, zf;
    if (b) bf = ToFloat32(*b);
    if (z) zf = ToFloat32(*z);
    Tensor yf = Tensor::Empty(DType::kFloat32, y_shape);
    NPUGAP_RETURN_IF_ERROR(ConvFloat(ctx, g, xf, wf, bf ? &*bf : nullptr, zf ? &*zf : nullptr, act, yf));
    y = FromFloat32(yf, x.dtype());
  } else {
    return ctx.UnsupportedDType(x.dtype());
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

// ---- ConvTranspose ----------------------------------------------------------------------------

struct DeconvGeometry {
  Window window;  // in = X's spatial dims, out = Y's
  int64_t batch = 0, in_channels = 0, out_channels = 0, group = 1;
};

// Output size and pads of ConvTranspose (ONNX opset 11 text, which older opsets share):
//   out = stride * (in - 1) + output_padding + ((kernel - 1) * dilation + 1) - pad_begin - pad_end
// With output_shape (or SAME auto_pad, where out = in * stride) the pads come from the total
// padding: SAME_UPPER puts the odd pixel at the end, NOTSET / SAME_LOWER at the beginning. A
// negative total (output_shape larger than the natural size) pads nothing and leaves the extra
// tail to the bias alone, as ONNX Runtime does.
Expected<DeconvGeometry> ResolveDeconv(const KernelContext& ctx, const Shape& x, const Shape& w) {
  const ir::Node& node = ctx.node;
  if (x.size() < 3 || x.size() > 5) return ctx.Error("X must have rank 3 to 5, got " + ir::ShapeToString(x));
  if (w.size() != x.size()) return ctx.Error("W must have the rank of X, got " + ir::ShapeToString(w));
  DeconvGeometry g;
  g.group = node.GetInt("group", 1);
  g.batch = x[0];
  g.in_channels = x[1];
  if (g.group < 1 || w[0] != g.in_channels || g.in_channels % g.group != 0) {
    return ctx.Error("W " + ir::ShapeToString(w) + " does not match X " + ir::ShapeToString(x) + " with group " +
                     std::to_string(g.group));
  }
  g.out_channels = w[1] * g.group;
  const int n = static_cast<int>(x.size()) - 2;
  Window& win = g.window;
  win.rank = n;
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  const auto strides = node.GetInts("strides", std::vector<int64_t>(n, 1));
  const auto dilations = node.GetInts("dilations", std::vector<int64_t>(n, 1));
  const auto output_padding = node.GetInts("output_padding", std::vector<int64_t>(n, 0));
  const auto pads = node.GetInts("pads", std::vector<int64_t>(2 * n, 0));
  const auto output_shape = node.GetInts("output_shape");
  const auto kernel_attr = node.GetInts("kernel_shape");
  const std::string auto_pad = node.GetString("auto_pad", "NOTSET");
  if (!kernel_attr.empty() && kernel_attr != kernel) return ctx.Error("kernel_shape does not match W");
  if (strides.size() != size_t(n) || dilations.size() != size_t(n) || output_padding.size() != size_t(n) ||
      pads.size() != size_t(2 * n)) {
    return ctx.Error("strides, dilations, output_padding and pads must have one entry per spatial axis");
  }
  // output_shape may list all dims (N, C, spatial...) in old exporters; use the spatial tail.
  std::vector<int64_t> out_spatial;
  if (!output_shape.empty()) {
    if (output_shape.size() < size_t(n)) return ctx.Error("output_shape has too few entries");
    out_spatial.assign(output_shape.end() - n, output_shape.end());
  }
  for (int i = 0; i < n; ++i) {
    const int a = kMaxSpatial - n + i;
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1 || output_padding[i] < 0) {
      return ctx.Error("strides, dilations and kernel must be positive, output_padding non-negative");
    }
    win.in[a] = x[2 + i];
    win.kernel[a] = kernel[i];
    win.stride[a] = strides[i];
    win.dilation[a] = dilations[i];
    const int64_t natural = strides[i] * (x[2 + i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1;
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (!out_spatial.empty() || same) {
      const int64_t out = !out_spatial.empty() ? out_spatial[i] : x[2 + i] * strides[i];
      const int64_t total = std::max<int64_t>(0, natural - out);
      win.pad_begin[a] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      win.pad_end[a] = total - win.pad_begin[a];
      win.out[a] = out;
    } else {
      if (auto_pad != "VALID") {
        win.pad_begin[a] = pads[i];
        win.pad_end[a] = pads[n + i];
      }
      if (win.pad_begin[a] < 0 || win.pad_end[a] < 0) return ctx.Error("pads must be non-negative");
      win.out[a] = natural - win.pad_begin[a] - win.pad_end[a];
    }
    if (win.out[a] < 0) return ctx.Error("pads exceed the output size");
  }
  return g;
}

// Scatter form: every input pixel adds its kernel-weighted footprint to the output. Parallel
// over (batch, output channel), so no two threads write one element.
template <typename T>
void ReferenceConvTranspose(const DeconvGeometry& g, const T* x, const T* w, const T* b, T* y) {
  const Window& win = g.window;
  const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group;
  const int64_t in_size = win.in_size(), out_size = win.out_size(), k_size = win.kernel_size();
  ParallelFor(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / g.out_channels, m = nm % g.out_channels, grp = m / mg, mm = m % mg;
      T* yp = y + nm * out_size;
      std::fill(yp, yp + out_size, b ? b[m] : T{0});
      for (int64_t c = grp * cg; c < (grp + 1) * cg; ++c) {
        const T* xp = x + (n * g.in_channels + c) * in_size;
        const T* wp = w + (c * mg + mm) * k_size;
        for (int64_t id = 0; id < win.in[0]; ++id)
          for (int64_t ih = 0; ih < win.in[1]; ++ih)
            for (int64_t iw = 0; iw < win.in[2]; ++iw) {
              const T xv = xp[(id * win.in[1] + ih) * win.in[2] + iw];
              for (int64_t kd = 0; kd < win.kernel[0]; ++kd) {
                const int64_t od = id * win.stride[0] - win.pad_begin[0] + kd * win.dilation[0];
                if (od < 0 || od >= win.out[0]) continue;
                for (int64_t kh = 0; kh < win.kernel[1]; ++kh) {
                  const int64_t oh = ih * win.stride[1] - win.pad_begin[1] + kh * win.dilation[1];
                  if (oh < 0 || oh >= win.out[1]) continue;
                  for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
                    const int64_t ow = iw * win.stride[2] - win.pad_begin[2] + kw * win.dilation[2];
                    if (ow < 0 || ow >= win.out[2]) continue;
                    yp[(od * win.out[1] + oh) * win.out[2] + ow] +=
                        xv * wp[(kd * win.kernel[1] + kh) * win.kernel[2] + kw];
                  }
                }
              }
            }
      }
    }
  });
}

struct DeconvEntry : du::CacheEntry {
  dnnl::deconvolution_forward deconv;
  memory::desc src, dst, user_weights, weights, bias;
  du::PackedWeights packed;
};

// oneDNN deconvolution with plain activations (ConvTranspose is rare in the target models; the
// plain layout keeps this path simple).
Status DnnlConvTranspose(KernelContext& ctx, const DeconvGeometry& g, const Tensor& x, const Tensor& w,
                         const Tensor* b, Tensor& y) {
  return du::Guard(ctx, [&]() -> Status {
    const Window& win = g.window;
    du::CacheKey key{&ctx.node, 2, {}};
    key.Add(x.shape());
    key.Add(w.shape());
    key.Add({g.group, b != nullptr});
    for (const Axes* a : {&win.out, &win.stride, &win.dilation, &win.pad_begin, &win.pad_end}) {
      key.Add(std::vector<int64_t>(a->begin(), a->end()));
    }
    NPUGAP_ASSIGN_OR_RETURN(
        std::shared_ptr<DeconvEntry> e,
        du::GetOrCreateAs<DeconvEntry>(std::move(key), [&]() -> Expected<std::shared_ptr<DeconvEntry>> {
          auto entry = std::make_shared<DeconvEntry>();
          const size_t rank = static_cast<size_t>(win.rank) + 2;
          const auto f32 = memory::data_type::f32;
          memory::dims src_dims{g.batch, g.in_channels}, dst_dims{g.batch, g.out_channels};
          for (int64_t v : win.Real(win.in)) src_dims.push_back(v);
          for (int64_t v : win.Real(win.out)) dst_dims.push_back(v);
          // ONNX W is (C, M/group, k...): oneDNN's (group, oc, ic, k...) over those strides.
          const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group, k_size = win.kernel_size();
          memory::dims w_dims{g.group, mg, cg}, w_strides{cg * mg * k_size, k_size, mg * k_size};
          for (int64_t v : win.Real(win.kernel)) w_dims.push_back(v);
          for (int i = 0; i < win.rank; ++i) {
            int64_t s = 1;
            for (int j = i + 1; j < win.rank; ++j) s *= w_dims[3 + j];
            w_strides.push_back(s);
          }
          entry->src = memory::desc(src_dims, f32, du::PlainTag(rank));
          entry->dst = memory::desc(dst_dims, f32, du::PlainTag(rank));
          entry->user_weights = memory::desc(w_dims, f32, w_strides);
          entry->bias = memory::desc({g.out_channels}, f32, memory::format_tag::a);
          memory::desc w_any(w_dims, f32, memory::format_tag::any);
          memory::dims dilates = win.Real(win.dilation);
          for (auto& d : dilates) d -= 1;
          const auto prop = dnnl::prop_kind::forward_inference;
          const auto alg = dnnl::algorithm::deconvolution_direct;
          auto desc = b ? dnnl::deconvolution_forward::desc(prop, alg, entry->src, w_any, entry->bias, entry->dst,
                                                            win.Real(win.stride), dilates, win.Real(win.pad_begin),
                                                            win.Real(win.pad_end))
                        : dnnl::deconvolution_forward::desc(prop, alg, entry->src, w_any, entry->dst,
                                                            win.Real(win.stride), dilates, win.Real(win.pad_begin),
                                                            win.Real(win.pad_end));
          dnnl::deconvolution_forward::primitive_desc pd(desc, du::Engine());
          entry->deconv = dnnl::deconvolution_forward(pd);
          entry->weights = pd.weights_desc();
          return entry;
        }));
    memory weights = e->packed.Get(w, e->user_weights, e->weights);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, du::Wrap(e->src, x.raw_data())},
                                         {DNNL_ARG_WEIGHTS, weights},
                                         {DNNL_ARG_DST, du::Wrap(e->dst, y.raw_data())}};
    if (b != nullptr) args[DNNL_ARG_BIAS] = du::Wrap(e->bias, b->raw_data());
    e->deconv.execute(du::Stream(), args);
    du::Stream().wait();
    return Status::Ok();
  });
}

}  // namespace

Status Conv(KernelContext& ctx) { return RunConv(ctx, Activation{}); }

// com.microsoft FusedConv (what ONNX Runtime's fusion emits): Y = activation(Conv(X, W, B) + Z).
Status FusedConv(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Activation act, ParseActivation(ctx));
  return RunConv(ctx, act);
}

Status ConvTranspose(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("needs inputs X and W");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (w.dtype() != x.dtype() || (b && b->dtype() != x.dtype())) return ctx.Error("X, W and B must share a type");
  NPUGAP_ASSIGN_OR_RETURN(DeconvGeometry g, ResolveDeconv(ctx, x.shape(), w.shape()));
  if (b && (b->rank() != 1 || b->dim(0) != g.out_channels)) {
    return ctx.Error("bias B must have " + std::to_string(g.out_channels) + " elements");
  }
  Shape y_shape{g.batch, g.out_channels};
  for (int64_t v : g.window.Real(g.window.out)) y_shape.push_back(v);
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), y_shape));
  if (y.numel() == 0) {
    ctx.outputs[0] = std::move(y);
    return Status::Ok();
  }
  auto run_float = [&](const Tensor& xf, const Tensor& wf, const Tensor* bf, Tensor& yf) -> Status {
    const Window& win = g.window;
    // oneDNN needs the output to match its own size formula: pads that fit inside the output.
    bool dnnl_ok = true;
    for (int a = 0; a < kMaxSpatial; ++a) {
      const int64_t natural = (win.in[a] - 1) * win.stride[a] + (win.kernel[a] - 1) * win.dilation[a] + 1;
      if (natural - win.pad_begin[a] - win.pad_end[a] != win.out[a]) dnnl_ok = false;
    }
    if (dnnl_ok) {
      Status s = DnnlConvTranspose(ctx, g, xf, wf, bf, yf);
      if (!du::IsUnimplemented(s)) return s;
    }
    ReferenceConvTranspose<float>(g, xf.data<float>(), wf.data<float>(), bf ? bf->data<float>() : nullptr,
                                  yf.data<float>());
    return Status::Ok();
  };
  if (x.dtype() == DType::kFloat32) {
    NPUGAP_RETURN_IF_ERROR(run_float(x, w, b, y));
  } else if (x.dtype() == DType::kFloat64) {
    ReferenceConvTranspose<double>(g, x.data<double>(), w.data<double>(), b ? b->data<double>() : nullptr,
                                   y.data<double>());
  } else if (x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16) {
    const Tensor xf = ToFloat32(x), wf = ToFloat32(w);
    std::optional<Tensor> bf;
    if (b) bf = ToFloat32(*b);
    Tensor yf = Tensor::Empty(DType::kFloat32, y_shape);
    NPUGAP_RETURN_IF_ERROR(run_float(xf, wf, bf ? &*bf : nullptr, yf));
    y = FromFloat32(yf, x.dtype());
  } else {
    return ctx.UnsupportedDType(x.dtype());
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

}  // namespace npugap::exec::nn
