// Private to the nn and quant op families: convolution / pooling window geometry, a reference
// direct convolution (used for float64, for the integer convolutions and as the fallback when
// oneDNN has no implementation), and the kernels that nn.cc puts in the op table.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/exec/kernel.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::nn {

// Up to three spatial axes. Fewer are stored right-aligned (a 1-D conv is D = H = 1), so one
// loop nest serves 1-D, 2-D and 3-D; the unused axes have size, kernel, stride and dilation 1
// and no padding.
constexpr int kMaxSpatial = 3;
using Axes = std::array<int64_t, kMaxSpatial>;

struct Window {
  int rank = 0;  // real spatial axes, 1..3
  Axes in{1, 1, 1};
  Axes out{1, 1, 1};
  Axes kernel{1, 1, 1};
  Axes stride{1, 1, 1};
  Axes dilation{1, 1, 1};
  Axes pad_begin{0, 0, 0};
  Axes pad_end{0, 0, 0};

  // The real axes of `a` (the last `rank` entries), e.g. for oneDNN dims.
  std::vector<int64_t> Real(const Axes& a) const { return {a.end() - rank, a.end()}; }
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  bool has_padding() const;
};

// How the output size of a window op is rounded.
enum class Rounding { kFloor, kCeil };

// Reads strides / pads / dilations / auto_pad of ctx.node and computes the output size of a
// convolution or pooling over the spatial dims of `x` (rank 3..5) with `kernel`. With ceil
// rounding, a last window that would start in the right padding is dropped (as PyTorch and
// later ONNX specs do); pad_end is left as given, so such windows reach past it.
Expected<Window> ResolveWindow(const KernelContext& ctx, const Shape& x, const std::vector<int64_t>& kernel,
                               bool use_dilations, Rounding rounding);

struct ConvGeometry {
  Window window;
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  int64_t in_per_group() const { return in_channels / group; }
  int64_t out_per_group() const { return out_channels / group; }
};

// Checks x (N x C x spatial) and w (M x C/group x kernel) of a Conv-like node (Conv,
// ConvInteger, QLinearConv) and computes the geometry.
Expected<ConvGeometry> ResolveConv(const KernelContext& ctx, const Shape& x, const Shape& w);

// Output shape N x M x out... of a conv geometry.
Shape ConvOutputShape(const ConvGeometry& g);

// Reference direct convolution in the NC[D][H]W layout:
//   acc = sum over (c, k) of (x - x_offset) * (w - w_offset[m]);  y = finish(m, acc)
// Padding contributes nothing (for quantized inputs padding holds the zero point). w_offsets
// may be null (no weight offset). Parallel over (batch, output channel).
template <typename TX, typename TW, typename Acc, typename TY, typename Finish>
void ReferenceConv(const ConvGeometry& g, const TX* x, const TW* w, Acc x_offset, const Acc* w_offsets, TY* y,
                   Finish finish) {
  const Window& win = g.window;
  const int64_t cg = g.in_per_group(), mg = g.out_per_group();
  const int64_t in_size = win.in_size(), out_size = win.out_size(), k_size = win.kernel_size();
  ParallelFor(g.batch * g.out_channels, 1, [&](int64_t begin, int64_t end) {
    for (int64_t nm = begin; nm < end; ++nm) {
      const int64_t n = nm / g.out_channels, m = nm % g.out_channels, grp = m / mg;
      const Acc w_off = w_offsets ? w_offsets[m] : Acc{0};
      const TX* x_group = x + (n * g.in_channels + grp * cg) * in_size;
      const TW* w_m = w + m * cg * k_size;
      TY* y_m = y + nm * out_size;
      for (int64_t od = 0; od < win.out[0]; ++od) {
        for (int64_t oh = 0; oh < win.out[1]; ++oh) {
          for (int64_t ow = 0; ow < win.out[2]; ++ow) {
            Acc acc{0};
            for (int64_t c = 0; c < cg; ++c) {
              const TX* xc = x_group + c * in_size;
              const TW* wc = w_m + c * k_size;
              for (int64_t kd = 0; kd < win.kernel[0]; ++kd) {
                const int64_t id = od * win.stride[0] - win.pad_begin[0] + kd * win.dilation[0];
                if (id < 0 || id >= win.in[0]) continue;
                for (int64_t kh = 0; kh < win.kernel[1]; ++kh) {
                  const int64_t ih = oh * win.stride[1] - win.pad_begin[1] + kh * win.dilation[1];
                  if (ih < 0 || ih >= win.in[1]) continue;
                  for (int64_t kw = 0; kw < win.kernel[2]; ++kw) {
                    const int64_t iw = ow * win.stride[2] - win.pad_begin[2] + kw * win.dilation[2];
                    if (iw < 0 || iw >= win.in[2]) continue;
                    const Acc xv = static_cast<Acc>(xc[(id * win.in[1] + ih) * win.in[2] + iw]) - x_offset;
                    const Acc wv =
                        static_cast<Acc>(wc[(kd * win.kernel[1] + kh) * win.kernel[2] + kw]) - w_off;
                    acc += xv * wv;
                  }
                }
              }
            }
            y_m[(od * win.out[1] + oh) * win.out[2] + ow] = finish(m, acc);
          }
        }
      }
    }
  });
}

// Shapes of a numpy-style (batched, broadcasting) matrix product A x B.
struct MatMulShape {
  Shape out;             // Y's shape (1-D operands' added dims removed again)
  Shape batch_shape;     // broadcast batch dims
  Shape a_batch_padded;  // A's batch dims left-padded with 1 to batch_shape's rank
  Shape b_batch_padded;
  int64_t m = 0, k = 0, n = 0;
  int64_t batch = 1;               // product of batch_shape
  bool b_is_matrix = true;         // B has no batch dims other than 1
  std::vector<int64_t> a_offsets;  // per batch index: element offset of its A / B matrix
  std::vector<int64_t> b_offsets;
};
Expected<MatMulShape> ResolveMatMul(const KernelContext& ctx, const Shape& a, const Shape& b);

// An activation fused into a convolution (com.microsoft FusedConv's "activation" attribute).
struct Activation {
  enum class Kind { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh, kHardSigmoid };
  Kind kind = Kind::kNone;
  float alpha = 0;  // LeakyRelu slope, Clip minimum, HardSigmoid slope
  float beta = 0;   // Clip maximum, HardSigmoid offset

  template <typename T>
  T Apply(T v) const {
    switch (kind) {
      case Kind::kNone:
        return v;
      case Kind::kRelu:
        return v > T(0) ? v : T(0);
      case Kind::kLeakyRelu:
        return v >= T(0) ? v : v * T(alpha);
      case Kind::kClip:
        return v < T(alpha) ? T(alpha) : (v > T(beta) ? T(beta) : v);
      case Kind::kSigmoid:
        return T(1) / (T(1) + std::exp(-v));
      case Kind::kTanh:
        return std::tanh(v);
      case Kind::kHardSigmoid: {
        const T h = T(alpha) * v + T(beta);
        return h < T(0) ? T(0) : (h > T(1) ? T(1) : h);
      }
    }
    return v;
  }
};

// Reads "activation" / "activation_params" (Relu, LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid).
Expected<Activation> ParseActivation(const KernelContext& ctx);

// float16 / bfloat16 <-> float32 copies, for kernels that compute 16-bit types in float32.
// ToFloat32 returns the tensor itself when it is float32 already.
Tensor ToFloat32(const Tensor& t);
Tensor FromFloat32(const Tensor& t, DType dtype);

// The finite-accumulator numerics policy of the cube kernels (nn_cube_accumulator.cc): plain
// loops that add exact float32 products through numerics::CubeAccumulator with `bits` fraction
// bits. Used only where the precision emulator set kCubeAccumulatorAttr on the node.
struct GemmArgs {
  int64_t m = 0, k = 0, n = 0;
  bool trans_a = false, trans_b = false;
  float alpha = 1.f, beta = 1.f;
  Shape c_shape;
};
void FiniteAccumulatorMatMul(const MatMulShape& s, const float* a, const float* b, float* y, int bits);
void FiniteAccumulatorGemm(const GemmArgs& g, const float* a, const float* b, const float* c, float* y,
                           int bits);
void FiniteAccumulatorConv(const ConvGeometry& g, const float* x, const float* w, const float* b,
                           const float* z, const Activation& act, float* y, int bits);
// The node's accumulator width, 0 when the policy is off (the attribute is absent).
int CubeAccumulatorBits(const KernelContext& ctx);

// The oneDNN-bf16 numerics policy of Conv (nn_conv_onednn_bf16.cc): oneDNN's bf16 convolution
// primitive, as PyTorch's CPU bf16 conv runs it. Used only where the precision emulator set
// kOneDnnBf16Attr on the node; x, w and b hold bf16 values in float32, y gets bf16 values.
bool OneDnnBf16Conv(const KernelContext& ctx);
Status OneDnnBf16ConvFloat(KernelContext& ctx, const ConvGeometry& g, const Tensor& x, const Tensor& w,
                           const Tensor* b, Tensor& y);

// Kernels of the op table (nn.cc lists them).
Status MatMul(KernelContext& ctx);
Status Gemm(KernelContext& ctx);
Status Conv(KernelContext& ctx);
Status ConvTranspose(KernelContext& ctx);
Status FusedConv(KernelContext& ctx);
Status MaxPool(KernelContext& ctx);
Status AveragePool(KernelContext& ctx);
Status LpPool(KernelContext& ctx);
Status GlobalAveragePool(KernelContext& ctx);
Status GlobalMaxPool(KernelContext& ctx);
Status GlobalLpPool(KernelContext& ctx);
Status MaxUnpool(KernelContext& ctx);

}  // namespace npugap::exec::nn
