// Conv and com.microsoft FusedConv (ConvTranspose is in nn_convtranspose.cc).
//
// float32 runs on oneDNN (weights pre-packed once per model through the dnnl_util cache) or,
// for wide depthwise 2-D convolutions, on a direct NCHW kernel here; float64 and whatever
// oneDNN rejects run on the reference loops of nn_internal.h; float16 / bfloat16 are computed
// in float32 and rounded back.
//
// oneDNN against im2col + OpenBLAS sgemm (thread CPU time, 1 thread, ms, batch 1 / 8; OpenBLAS
// 0.3.21 forced to its SkylakeX kernels, it detects this VM's CPU as "Prescott" and is 2-5x
// slower still):
//   layer                 oneDNN+reorders  oneDNN alone  im2col+sgemm
//   7x7s2 3->64 @224          2.0 / 29        1.8 / 14      9.0 / 63
//   3x3 64->64 @56            1.9 / 20        1.5 / 14      7.5 / 57
//   3x3 256->256 @14          1.7 / 11        1.6 / 14      3.4 / 29
//   1x1 64->256 @56           1.3 / 17        0.8 / 7.6     1.4 / 16   (no im2col for 1x1)
//   1x1 512->2048 @7          0.9 / 9.4       0.8 / 6.8     1.4 / 11
// so convolutions go to oneDNN.
//
// Activation layouts. Inside a chain of convolutions (exec/fusion.h marks it) activations stay
// in nChw16c from one convolution to the next and every convolution of the chain runs on
// oneDNN's blocked kernels: mobilenet_v2 batch 1, 1 thread, 14.4 -> 7.5 ms. At a chain's ends,
// and for convolutions outside chains, the boundary is plain NCHW and the choices below apply.
// Measured on this machine (AVX-512,
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
// where oneDNN's first-layer kernels read NCHW directly; NCHW in with NHWC or nChw16c out for
// many input channels falls to a reference kernel, seconds); 1x1 convolutions stay NCHW (a
// plain GEMM, no reorder) when the image is large and use nChw16c when it is small. Depthwise
// 2-D convolutions with wide outputs use the direct NCHW kernel below, narrower ones oneDNN in
// nChw16c (thread CPU time, ms, b1 / b8):
//   dw3x3 144 @56 s1:  direct 0.29 / 4.4   oneDNN+reorders 0.49 / 4.9
//   dw3x3  96 @112 s2: direct 0.77 / 8.7   oneDNN+reorders 0.76 / 11.2
//   dw3x3 144 @56 s2:  direct 0.22 / 2.6   oneDNN+reorders 0.27 / 2.1
//   dw3x3 576 @14 s1:  direct 0.21 / 2.7   oneDNN+reorders 0.10 / 1.0
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "dnnl_util.h"
#include "nn_conv_dnnl.h"
#include "npugap/exec/fusion.h"
#include "nn_internal.h"

namespace npugap::exec::nn {
namespace {

using dnnl::memory;
namespace du = dnnl_util;

// ---- activations fused into a convolution (FusedConv) ----------------------------------------

void AppendActivation(const Activation& act, dnnl::post_ops& ops) {
  using alg = dnnl::algorithm;
  switch (act.kind) {
    case Activation::Kind::kNone:
      break;
    case Activation::Kind::kRelu:
      ops.append_eltwise(1.f, alg::eltwise_relu, 0.f, 0.f);
      break;
    case Activation::Kind::kLeakyRelu:
      ops.append_eltwise(1.f, alg::eltwise_relu, act.alpha, 0.f);
      break;
    case Activation::Kind::kClip:
      ops.append_eltwise(1.f, alg::eltwise_clip, act.alpha, act.beta);
      break;
    case Activation::Kind::kSigmoid:
      ops.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f);
      break;
    case Activation::Kind::kTanh:
      ops.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f);
      break;
    case Activation::Kind::kHardSigmoid:  // clip(alpha * x + beta, 0, 1)
      ops.append_eltwise(1.f, alg::eltwise_linear, act.alpha, act.beta);
      ops.append_eltwise(1.f, alg::eltwise_clip, 0.f, 1.f);
      break;
  }
}

// ---- direct depthwise 2-D convolution ---------------------------------------------------------

bool IsDepthwise2d(const ConvGeometry& g) {
  return g.window.rank == 2 && g.group == g.in_channels && g.out_channels == g.in_channels && g.group > 1;
}

// Applies the activation to a row; the switch sits outside the loops so they vectorise.
void ActivateRow(const Activation& act, float* y, int64_t n) {
  switch (act.kind) {
    case Activation::Kind::kNone:
      return;
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

// y = act(y + z) (z may be null), in cache-sized chunks.
void AddAndActivate(float* y, const float* z, int64_t n, const Activation& act) {
  if (z == nullptr && act.kind == Activation::Kind::kNone) return;
  ParallelFor(n, 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; c += 1 << 12) {
      const int64_t len = std::min<int64_t>(1 << 12, end - c);
      if (z != nullptr) {
        for (int64_t i = c; i < c + len; ++i) y[i] += z[i];
      }
      ActivateRow(act, y + c, len);
    }
  });
}

// One output plane, from the zero-padded input plane. With compile-time K and S each kernel
// row is one pass over the output row (yr[ow] += sum over kw of w * x[ow * S + kw]), which keeps
// few registers live so the ow loop vectorises without spills (AVX2 has 16). K == 0: runtime
// sizes, strides and dilations.
template <int K, int S>
void DepthwisePlane(const Window& win, const float* __restrict padded, int64_t padded_w, const float* w,
                    float bias, const Activation& act, float* __restrict y) {
  const int64_t out_w = win.out[2];
  if constexpr (K != 0) {
    float wk[K * K];
    for (int i = 0; i < K * K; ++i) wk[i] = w[i];
    for (int64_t oh = 0; oh < win.out[1]; ++oh) {
      float* __restrict yr = y + oh * out_w;
      for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] = bias;
      for (int kh = 0; kh < K; ++kh) {
        const float* __restrict xr = padded + (oh * S + kh) * padded_w;
        const float* wr = wk + kh * K;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          float acc = 0.f;
          for (int kw = 0; kw < K; ++kw) acc += wr[kw] * xr[ow * S + kw];
          yr[ow] += acc;
        }
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

// Stride-2 variant: each padded row is first split into its even and odd columns, so every
// tap reads unit-stride (kw even: even[ow + kw / 2], kw odd: odd[ow + kw / 2]) and vectorises
// without gathers. `split` holds per row `half` even then `half` odd values.
template <int K>
void DepthwisePlaneStride2(const Window& win, const float* __restrict split, int64_t half, const float* w,
                           float bias, const Activation& act, float* __restrict y) {
  const int64_t out_w = win.out[2];
  float wk[K * K];
  for (int i = 0; i < K * K; ++i) wk[i] = w[i];
  for (int64_t oh = 0; oh < win.out[1]; ++oh) {
    float* __restrict yr = y + oh * out_w;
    for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] = bias;
    for (int kh = 0; kh < K; ++kh) {
      const float* __restrict even = split + (2 * oh + kh) * 2 * half;
      const float* __restrict odd = even + half;
      const float* wr = wk + kh * K;
      for (int64_t ow = 0; ow < out_w; ++ow) {
        float acc = 0.f;
        for (int kw = 0; kw < K; ++kw) acc += wr[kw] * (kw % 2 == 0 ? even : odd)[ow + kw / 2];
        yr[ow] += acc;
      }
    }
    ActivateRow(act, yr, out_w);
  }
}

// out[j] = row[first + 2j] for j < count, zero where that is outside [0, width).
void SplitColumns(const float* __restrict row, int64_t width, int64_t first, int64_t count,
                  float* __restrict out) {
  const int64_t lo = std::min(count, first >= 0 ? 0 : (1 - first) / 2);  // first j inside
  const int64_t hi = width - 1 - first < 0 ? lo : std::clamp<int64_t>((width - 1 - first) / 2 + 1, lo, count);
  std::fill(out, out + lo, 0.f);
  const float* src = row + first;
  for (int64_t j = lo; j < hi; ++j) out[j] = src[2 * j];
  std::fill(out + hi, out + count, 0.f);
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
  const int64_t half = (cols + 1) / 2;
  std::atomic<bool> ok{true};
  ParallelFor(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    // The padded plane, or for stride 2 its rows split into even and odd columns.
    float* padded = static_cast<float*>(du::Scratch(2, static_cast<size_t>(rows * 2 * half) * sizeof(float)));
    float* split = padded;
    if (padded == nullptr) {
      ok = false;
      return;
    }
    for (int64_t nc = begin; nc < end; ++nc) {
      const int64_t c = nc % g.out_channels;
      const float* xp = x + nc * win.in[1] * win.in[2];
      const float* wc = w + c * win.kernel[1] * win.kernel[2];
      const float bias = b ? b[c] : 0.f;
      float* yp = y + nc * win.out_size();
      if ((k3 || k5) && s2) {
        // Split rows straight from the input: even[j] / odd[j] = padded column 2j / 2j + 1.
        for (int64_t r = 0; r < rows; ++r) {
          float* even = split + r * 2 * half;
          const int64_t ih = r - ph;
          if (ih < 0 || ih >= win.in[1]) {
            std::fill(even, even + 2 * half, 0.f);
            continue;
          }
          const float* xr = xp + ih * win.in[2];
          SplitColumns(xr, win.in[2], -pw, half, even);
          SplitColumns(xr, win.in[2], 1 - pw, half, even + half);
        }
        if (k3) {
          DepthwisePlaneStride2<3>(win, split, half, wc, bias, act, yp);
        } else {
          DepthwisePlaneStride2<5>(win, split, half, wc, bias, act, yp);
        }
        continue;
      }
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
      if (k3 && s1) {
        DepthwisePlane<3, 1>(win, padded, cols, wc, bias, act, yp);
      } else if (k5 && s1) {
        DepthwisePlane<5, 1>(win, padded, cols, wc, bias, act, yp);
      } else {
        DepthwisePlane<0, 0>(win, padded, cols, wc, bias, act, yp);
      }
    }
  });
  return ok;
}

// ---- 1x1 convolution as blocked GEMMs --------------------------------------------------------

// A 1x1, stride-1, unpadded, ungrouped convolution over a large NCHW image is a GEMM per image,
// Y[m, p] = sum_c W[m, c] X[c, p]. It runs as oneDNN sgemm calls on column blocks sized to stay
// in L2, each followed at once by bias, Z and the activation while the block is hot. oneDNN's
// own GEMM convolution writes the whole output first, so a fused activation or sum costs a
// second pass over memory (1x1 16->96 @112, batch 8, with Clip: 17.3 ms vs ONNX Runtime's 9.6).
bool IsLargePointwise(const ConvGeometry& g) {
  const Window& win = g.window;
  return win.kernel_size() == 1 && win.stride == Axes{1, 1, 1} && !win.has_padding() && g.group == 1 &&
         win.in_size() >= 28 * 28;
}

Status PointwiseGemmConv(const KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                         const float* b, const float* z, const Activation& act, float* y) {
  const int64_t m_count = g.out_channels, k_count = g.in_channels, pixels = g.window.in_size();
  // Columns per block: the Y and X blocks together about 1 MiB.
  const int64_t block = std::clamp<int64_t>((int64_t{1} << 18) / (m_count + k_count) / 16 * 16, 64, pixels);
  const int64_t blocks = (pixels + block - 1) / block;
  std::atomic<bool> ok{true};
  ParallelFor(g.batch * blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, col = (task % blocks) * block, cols = std::min(block, pixels - col);
      const float* xb = x + n * k_count * pixels + col;
      float* yb = y + n * m_count * pixels + col;
      // Row-major: (M x K) times (K x cols, leading dim pixels) into (M x cols, leading dim pixels).
      if (dnnl_sgemm('N', 'N', m_count, cols, k_count, 1.f, w, k_count, xb, pixels, 0.f, yb, pixels) !=
          dnnl_success) {
        ok = false;
        return;
      }
      for (int64_t m = 0; m < m_count; ++m) {
        float* row = yb + m * pixels;
        const float bias = b ? b[m] : 0.f;
        if (z != nullptr) {
          const float* zr = z + (n * m_count + m) * pixels + col;
          for (int64_t j = 0; j < cols; ++j) row[j] += bias + zr[j];
        } else if (bias != 0.f) {
          for (int64_t j = 0; j < cols; ++j) row[j] += bias;
        }
        ActivateRow(act, row, cols);
      }
    }
  });
  if (!ok) return Status::Internal(ctx.Error("oneDNN sgemm failed").message());
  return Status::Ok();
}

// ---- oneDNN convolution -----------------------------------------------------------------------

}  // namespace

DnnlConvDims ToDnnlConvDims(const ConvGeometry& g) {
  const Window& win = g.window;
  DnnlConvDims d;
  d.src = {g.batch, g.in_channels};
  d.dst = {g.batch, g.out_channels};
  for (int64_t v : win.Real(win.in)) d.src.push_back(v);
  for (int64_t v : win.Real(win.out)) d.dst.push_back(v);
  if (g.group > 1) {
    d.weights = {g.group, g.out_per_group(), g.in_per_group()};
  } else {
    d.weights = {g.out_channels, g.in_channels};
  }
  for (int64_t v : win.Real(win.kernel)) d.weights.push_back(v);
  d.strides = win.Real(win.stride);
  d.dilates = win.Real(win.dilation);
  for (auto& v : d.dilates) v -= 1;  // oneDNN counts the gaps
  d.pad_l = win.Real(win.pad_begin);
  d.pad_r = win.Real(win.pad_end);
  return d;
}

namespace {

// Which of X, Z and Y are held in nChw16c between convolutions (set by exec/fusion.h).
struct BlockedLayouts {
  bool x = false, z = false, y = false;
  bool any() const { return x || z || y; }
};

BlockedLayouts ReadBlockedLayouts(const ir::Node& node) {
  return {node.GetInt(kBlockedXAttr, 0) != 0, node.GetInt(kBlockedZAttr, 0) != 0, node.GetInt(kBlockedYAttr, 0) != 0};
}

// [N, C, H, W] -> the blocked tensor's [N, ceil(C / 16), H, W, 16].
Shape BlockedShape(const Shape& logical) {
  return {logical[0], (logical[1] + 15) / 16, logical[2], logical[3], 16};
}

struct ConvEntry : du::CacheEntry {
  dnnl::convolution_forward conv;
  // Z and the activation are applied here after the primitive rather than as oneDNN post-ops
  // (NCHW output: oneDNN's GEMM-based convolution runs post-ops several times slower than the
  // convolution itself, 7.8 ms vs 1.2 ms for 1x1 16->96 @112 with Clip).
  bool post_ops_in_cpp = false;
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
  if (g.in_channels < 16 && g.out_channels < 16) return {plain, plain};
  // 1x1 convolutions over large images stay NCHW, strided ones too: oneDNN then reads only
  // the pixels it needs, where a reorder would copy the whole input (1x1 s2 256->512 @56:
  // NCHW 2.1 / 14.6 ms, nChw16c + reorders 1.6 / 19.2 ms at batch 1 / 8).
  const bool pointwise = win.kernel_size() == 1 && !win.has_padding() && g.group == 1;
  if (pointwise && win.in_size() >= 28 * 28) return {plain, plain};
  return {g.in_channels < 16 ? plain : blocked, blocked};
}

Expected<std::shared_ptr<ConvEntry>> MakeConvEntry(const ConvGeometry& g, bool has_bias,
                                                   const Activation& act, bool has_sum,
                                                   const BlockedLayouts& lay) {
  auto entry = std::make_shared<ConvEntry>();
  const Window& win = g.window;
  const size_t rank = static_cast<size_t>(win.rank) + 2;
  const auto [src_dims, dst_dims, w_dims, strides, dilates, pad_l, pad_r] = ToDnnlConvDims(g);

  const auto f32 = memory::data_type::f32;
  entry->user_src = memory::desc(src_dims, f32, lay.x ? du::Blocked16Tag(rank) : du::PlainTag(rank));
  entry->user_dst = memory::desc(dst_dims, f32, lay.y ? du::Blocked16Tag(rank) : du::PlainTag(rank));
  entry->user_weights = memory::desc(w_dims, f32, du::PlainTag(w_dims.size()));
  entry->bias = memory::desc({g.out_channels}, f32, memory::format_tag::a);
  // The measured choice first; when oneDNN can only run it with a reference kernel (grouped
  // convolutions with few channels per group, for one), the next layouts that get a real one.
  auto [chosen_src, chosen_dst] = ChooseConvLayouts(g);
  const memory::format_tag plain = du::PlainTag(rank), blocked = du::Blocked16Tag(rank);
  if (lay.any()) {  // inside a blocked chain every convolution runs blocked
    chosen_src = lay.x || g.in_channels >= 16 ? blocked : plain;
    chosen_dst = blocked;
  }
  const std::pair<memory::format_tag, memory::format_tag> candidates[] = {
      {chosen_src, chosen_dst},
      {memory::format_tag::any, memory::format_tag::any},
      {blocked, blocked},
      {plain, plain}};
  const memory::desc w_any(w_dims, f32, memory::format_tag::any);
  const auto prop = dnnl::prop_kind::forward_inference;
  const auto alg = dnnl::algorithm::convolution_direct;
  std::optional<dnnl::convolution_forward::primitive_desc> pd;
  for (const auto& [src_tag, dst_tag] : candidates) {
    const memory::desc src_md(src_dims, f32, src_tag), dst_md(dst_dims, f32, dst_tag);
    dnnl::primitive_attr attr;
    // NCHW output: Z and the activation are applied after the primitive (see ConvEntry).
    const bool post_ops_in_cpp = dst_tag == plain;
    if (!post_ops_in_cpp) {
      dnnl::post_ops ops;
      if (has_sum) ops.append_sum(1.f);
      AppendActivation(act, ops);
      attr.set_post_ops(ops);
    }
    auto desc = has_bias ? dnnl::convolution_forward::desc(prop, alg, src_md, w_any, entry->bias, dst_md,
                                                           strides, dilates, pad_l, pad_r)
                         : dnnl::convolution_forward::desc(prop, alg, src_md, w_any, dst_md, strides, dilates,
                                                           pad_l, pad_r);
    try {
      dnnl::convolution_forward::primitive_desc candidate(desc, attr, du::Engine());
      const bool reference = std::string(candidate.impl_info_str()).find("ref") != std::string::npos;
      if (!pd || !reference) {
        pd = candidate;
        entry->post_ops_in_cpp = post_ops_in_cpp;
      }
      if (!reference) break;
    } catch (const dnnl::error& e) {
      if (e.status != dnnl_unimplemented) throw;
    }
  }
  if (!pd) throw dnnl::error(dnnl_unimplemented, "no convolution implementation");
  entry->conv = dnnl::convolution_forward(*pd);
  entry->src = pd->src_desc();
  entry->dst = pd->dst_desc();
  entry->weights = pd->weights_desc();
  if (entry->src != entry->user_src) {
    entry->src_reorder =
        dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), entry->user_src, du::Engine(), entry->src));
  }
  if (entry->dst != entry->user_dst) {
    entry->dst_reorder =
        dnnl::reorder(dnnl::reorder::primitive_desc(du::Engine(), entry->dst, du::Engine(), entry->user_dst));
  }
  return entry;
}

// y = act(conv(x, w) + b + z) on oneDNN. Returns an "unimplemented" status (see
// dnnl_util::IsUnimplemented) when oneDNN cannot run this geometry.
Status DnnlConv(KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* b,
                const Tensor* z, const Activation& act, const BlockedLayouts& lay, Tensor& y) {
  return du::Guard(ctx, [&]() -> Status {
    du::CacheKey key{&ctx.node, 1, {}};
    key.Add(x.shape());
    key.Add(w.shape());
    key.Add({g.group, b != nullptr, z != nullptr, static_cast<int64_t>(act.kind), lay.x, lay.z, lay.y});
    key.Add(std::vector<int64_t>(g.window.stride.begin(), g.window.stride.end()));
    key.Add(std::vector<int64_t>(g.window.dilation.begin(), g.window.dilation.end()));
    key.Add(std::vector<int64_t>(g.window.pad_begin.begin(), g.window.pad_begin.end()));
    key.Add(std::vector<int64_t>(g.window.pad_end.begin(), g.window.pad_end.end()));
    key.Add({static_cast<int64_t>(std::bit_cast<uint32_t>(act.alpha)),
             static_cast<int64_t>(std::bit_cast<uint32_t>(act.beta))});
    NPUGAP_ASSIGN_OR_RETURN(std::shared_ptr<ConvEntry> e, du::GetOrCreateAs<ConvEntry>(std::move(key), [&] {
                              return MakeConvEntry(g, b != nullptr, act, z != nullptr, lay);
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
    if (z != nullptr && !e->post_ops_in_cpp) {  // the sum post-op adds what dst holds
      memory user_z = du::Wrap(e->user_dst, z->raw_data());
      dnnl::reorder(user_z, dst).execute(stream, user_z, dst);
    }
    memory weights = e->packed.Get(w, e->user_weights, e->weights);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
    if (b != nullptr) args[DNNL_ARG_BIAS] = du::Wrap(e->bias, b->raw_data());
    e->conv.execute(stream, args);
    if (e->dst_reorder) e->dst_reorder->execute(stream, dst, user_dst);
    stream.wait();
    if (e->post_ops_in_cpp) AddAndActivate(y.data<float>(), z ? z->data<float>() : nullptr, y.numel(), act);
    return Status::Ok();
  });
}

// float32 convolution: direct depthwise kernel, oneDNN, or the reference loops.
Status ConvFloat(KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w, const Tensor* b,
                 const Tensor* z, const Activation& act, const BlockedLayouts& lay, Tensor& y) {
  if (const int bits = CubeAccumulatorBits(ctx); bits > 0) {
    // The emulator runs this policy on plain layouts only (it drops the blocked-layout marks).
    if (lay.any()) return ctx.Error("the finite-accumulator model needs plain NCHW tensors");
    FiniteAccumulatorConv(g, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr,
                          z ? z->data<float>() : nullptr, act, y.data<float>(), bits);
    return Status::Ok();
  }
  if (OneDnnBf16Conv(ctx)) {
    // The emulator runs this policy on the model as written (uniform_* plans are unfused).
    if (lay.any() || z != nullptr || act.kind != Activation::Kind::kNone)
      return ctx.Error("the oneDNN bf16 policy takes an unfused Conv");
    Status s = OneDnnBf16ConvFloat(ctx, g, x, w, b, y);
    // oneDNN has no bf16 convolution on a CPU without AVX-512 (nor has PyTorch's oneDNN path):
    // the fp32 convolution below, whose result the emulator rounds to bf16 once.
    if (!du::IsUnimplemented(s)) return s;
  }
  if (lay.any()) {
    Status s = DnnlConv(ctx, g, x, w, b, z, act, lay, y);
    if (du::IsUnimplemented(s)) return Status::Internal(ctx.Error("oneDNN cannot run this blocked convolution").message());
    return s;
  }
  if (IsDepthwise2d(g) && g.window.out[2] >= 56 && z == nullptr) {
    if (!DepthwiseConv2d(g, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, act,
                         y.data<float>())) {
      return ctx.Error("out of memory");
    }
    return Status::Ok();
  }
  if (IsLargePointwise(g)) {
    return PointwiseGemmConv(ctx, g, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr,
                             z ? z->data<float>() : nullptr, act, y.data<float>());
  }
  Status s = DnnlConv(ctx, g, x, w, b, z, act, lay, y);
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
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Error("needs inputs X and W");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* z = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (w.dtype() != x.dtype() || (b && b->dtype() != x.dtype()) || (z && z->dtype() != x.dtype())) {
    return ctx.Error("inputs must share one element type");
  }
  const BlockedLayouts lay = ReadBlockedLayouts(ctx.node);
  if (lay.any() && x.dtype() != DType::kFloat32) return ctx.Error("blocked layouts are float32 only");
  Shape x_shape = x.shape();
  if (lay.x) {  // [N, ceil(C/16), H, W, 16] with C = W's input channels x group
    if (x.rank() != 5 || x.dim(4) != 16 || w.rank() != 4) return ctx.Error("blocked X has shape " + ir::ShapeToString(x.shape()));
    x_shape = {x.dim(0), w.dim(1) * ctx.node.GetInt("group", 1), x.dim(2), x.dim(3)};
    if ((x_shape[1] + 15) / 16 != x.dim(1)) return ctx.Error("blocked X does not match W " + ir::ShapeToString(w.shape()));
  }
  NPUGAP_ASSIGN_OR_RETURN(ConvGeometry g, ResolveConv(ctx, x_shape, w.shape()));
  if (b && (b->rank() != 1 || b->dim(0) != g.out_channels)) {
    return ctx.Error("bias B has shape " + ir::ShapeToString(b->shape()) + ", expected " +
                     std::to_string(g.out_channels));
  }
  if (lay.any() && g.window.rank != 2) return ctx.Error("blocked layouts need a 2-D convolution");
  const Shape y_logical = ConvOutputShape(g);
  const Shape y_shape = lay.y ? BlockedShape(y_logical) : y_logical;
  if (z && z->shape() != (lay.z ? BlockedShape(y_logical) : y_logical))
    return ctx.Error("Z must have the output shape " + ir::ShapeToString(y_logical));
  NPUGAP_ASSIGN_OR_RETURN(Tensor y, Tensor::Create(x.dtype(), y_shape));
  if (y.numel() == 0) {
    ctx.outputs[0] = std::move(y);
    return Status::Ok();
  }
  if (x.dtype() == DType::kFloat32) {
    NPUGAP_RETURN_IF_ERROR(ConvFloat(ctx, g, x, w, b, z, act, lay, y));
  } else if (x.dtype() == DType::kFloat64) {
    const double* bias = b ? b->data<double>() : nullptr;
    const double* zd = z ? z->data<double>() : nullptr;
    double* yd = y.data<double>();
    ReferenceConv<double, double, double>(
        g, x.data<double>(), w.data<double>(), 0.0, nullptr, yd,
        [&](int64_t m, double acc) { return acc + (bias ? bias[m] : 0.0); });
    for (int64_t i = 0; i < y.numel(); ++i) yd[i] = act.Apply(yd[i] + (zd ? zd[i] : 0.0));
  } else if (x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16) {
    const Tensor xf = ToFloat32(x), wf = ToFloat32(w);
    std::optional<Tensor> bf, zf;
    if (b) bf = ToFloat32(*b);
    if (z) zf = ToFloat32(*z);
    Tensor yf = Tensor::Empty(DType::kFloat32, y_shape);
    NPUGAP_RETURN_IF_ERROR(ConvFloat(ctx, g, xf, wf, bf ? &*bf : nullptr, zf ? &*zf : nullptr, act, lay, yf));
    y = FromFloat32(yf, x.dtype());
  } else {
    return ctx.UnsupportedDType(x.dtype());
  }
  ctx.outputs[0] = std::move(y);
  return Status::Ok();
}

}  // namespace

Status Conv(KernelContext& ctx) { return RunConv(ctx, Activation{}); }

// com.microsoft FusedConv (what ONNX Runtime's fusion emits): Y = activation(Conv(X, W, B) + Z).
Status FusedConv(KernelContext& ctx) {
  NPUGAP_ASSIGN_OR_RETURN(Activation act, ParseActivation(ctx));
  return RunConv(ctx, act);
}

}  // namespace npugap::exec::nn
