// ConvTranspose: oneDNN deconvolution for float32 when the output size is oneDNN's own (pads
// inside the output), a reference scatter loop otherwise and for float64; float16 / bfloat16
// are computed in float32.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "dnnl_util.h"
#include "nn_internal.h"
#include "npugap/numerics/cube_accumulator.h"

namespace npugap::exec::nn {
namespace {

using dnnl::memory;
namespace du = dnnl_util;

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
    return ctx.Error("W " + ir::ShapeToString(w) + " does not match X " + ir::ShapeToString(x) +
                     " with group " + std::to_string(g.group));
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
    const int64_t natural =
        strides[i] * (x[2 + i] - 1) + output_padding[i] + (kernel[i] - 1) * dilations[i] + 1;
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

// The finite-accumulator policy (nn_cube_accumulator.cc) in gather form. The cube runs a
// ConvTranspose as Conv2DBackpropInput: a convolution of the stride-dilated input with the
// rotated kernel, so K is input-channel blocks of 16, then the rotated taps, then the block's
// channels; one fractal per (block, tap). Taps that land between dilated input pixels are zeros.
void FiniteAccumulatorConvTranspose(const DeconvGeometry& g, const float* x, const float* w, const float* b,
                                    float* y, int bits) {
  const Window& win = g.window;
  const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group;
  const int64_t in_size = win.in_size(), out_size = win.out_size(), k_size = win.kernel_size();
  auto source = [&](int a, int64_t o, int64_t k) -> int64_t {  // input index of a tap, or -1
    const int64_t t = o + win.pad_begin[a] - k * win.dilation[a];
    if (t < 0 || t % win.stride[a] != 0 || t / win.stride[a] >= win.in[a]) return -1;
    return t / win.stride[a];
  };
  ParallelFor(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / g.out_channels, m = nm % g.out_channels, grp = m / mg, mm = m % mg;
      for (int64_t o = 0; o < out_size; ++o) {
        const int64_t od = o / (win.out[1] * win.out[2]), oh = (o / win.out[2]) % win.out[1],
                      ow = o % win.out[2];
        numerics::CubeAccumulator acc(bits);
        for (int64_t c1 = 0; c1 < cg; c1 += numerics::kCubeFractalK) {
          const int64_t c_end = std::min(cg, c1 + numerics::kCubeFractalK);
          for (int64_t t = k_size - 1; t >= 0; --t) {
            const int64_t id = source(0, od, t / (win.kernel[1] * win.kernel[2]));
            const int64_t ih = source(1, oh, (t / win.kernel[2]) % win.kernel[1]);
            const int64_t iw = source(2, ow, t % win.kernel[2]);
            if (id < 0 || ih < 0 || iw < 0) continue;
            const int64_t xi = (id * win.in[1] + ih) * win.in[2] + iw;
            for (int64_t c = c1; c < c_end; ++c) {
              const int64_t ci = grp * cg + c;
              acc.Add(static_cast<double>(x[(n * g.in_channels + ci) * in_size + xi]) *
                      w[(ci * mg + mm) * k_size + t]);
            }
            acc.EndFractal();
          }
        }
        y[nm * out_size + o] = acc.Result() + (b ? b[m] : 0.f);
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
          const int64_t cg = g.in_channels / g.group, mg = g.out_channels / g.group,
                        k_size = win.kernel_size();
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
          auto desc = b ? dnnl::deconvolution_forward::desc(prop, alg, entry->src, w_any, entry->bias,
                                                            entry->dst, win.Real(win.stride), dilates,
                                                            win.Real(win.pad_begin), win.Real(win.pad_end))
                        : dnnl::deconvolution_forward::desc(prop, alg, entry->src, w_any, entry->dst,
                                                            win.Real(win.stride), dilates,
                                                            win.Real(win.pad_begin), win.Real(win.pad_end));
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

Status ConvTranspose(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || !ctx.has_input(0) || !ctx.has_input(1))
    return ctx.Error("needs inputs X and W");
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor* b = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (w.dtype() != x.dtype() || (b && b->dtype() != x.dtype()))
    return ctx.Error("X, W and B must share a type");
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
    if (const int bits = CubeAccumulatorBits(ctx); bits > 0) {
      FiniteAccumulatorConvTranspose(g, xf.data<float>(), wf.data<float>(), bf ? bf->data<float>() : nullptr,
                                     yf.data<float>(), bits);
      return Status::Ok();
    }
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
