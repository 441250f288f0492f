// The cube kernels' finite-accumulator numerics policy (numerics/cube_accumulator.h): when the
// precision emulator marks a Conv, FusedConv, MatMul or Gemm node with kCubeAccumulatorAttr
// (exec/emulation_op.h), its float32 path runs these loops instead of oneDNN, feeding the exact
// products to a CubeAccumulator in the cube's K order. Plain loops, so slow (docs/precision.md
// gives the cost); the default (no attribute) never comes here. ConvTranspose's variant is in
// nn_convtranspose.cc, next to its geometry.
#include <algorithm>

#include "nn_internal.h"
#include "npugap/exec/emulation_op.h"
#include "npugap/numerics/cube_accumulator.h"

namespace npugap::exec::nn {

using numerics::CubeAccumulator;
using numerics::kCubeFractalK;

int CubeAccumulatorBits(const KernelContext& ctx) {
  return static_cast<int>(ctx.node.GetInt(kCubeAccumulatorAttr, 0));
}

// K runs along A's rows / B's columns; fractals are 16 consecutive k (ND -> FRACTAL_NZ, K0 = 16).
void FiniteAccumulatorMatMul(const MatMulShape& s, const float* a, const float* b, float* y, int bits) {
  ParallelFor(s.batch * s.m, 1, [&](int64_t begin, int64_t end) {
    for (int64_t bi = begin; bi < end; ++bi) {
      const int64_t batch = bi / s.m, i = bi % s.m;
      const float* ar = a + s.a_offsets[static_cast<size_t>(batch)] + i * s.k;
      const float* bm = b + s.b_offsets[static_cast<size_t>(batch)];
      for (int64_t j = 0; j < s.n; ++j) {
        CubeAccumulator acc(bits);
        for (int64_t kk = 0; kk < s.k; ++kk) acc.Add(static_cast<double>(ar[kk]) * bm[kk * s.n + j]);
        y[bi * s.n + j] = acc.Result();
      }
    }
  });
}

void FiniteAccumulatorGemm(const GemmArgs& g, const float* a, const float* b, const float* c, float* y,
                           int bits) {
  const int64_t c_rows = g.c_shape.size() == 2 ? g.c_shape[0] : 1;
  const int64_t c_cols = g.c_shape.empty() ? 1 : g.c_shape.back();
  ParallelFor(g.m, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      for (int64_t j = 0; j < g.n; ++j) {
        CubeAccumulator acc(bits);
        for (int64_t kk = 0; kk < g.k; ++kk) {
          const float av = g.trans_a ? a[kk * g.m + i] : a[i * g.k + kk];
          const float bv = g.trans_b ? b[j * g.k + kk] : b[kk * g.n + j];
          acc.Add(static_cast<double>(av) * bv);
        }
        // alpha and C are applied to the FP32 accumulator (the vector unit's step after L0C).
        float v = g.alpha * acc.Result();
        if (c) v += g.beta * c[(c_rows == 1 ? 0 : i) * c_cols + (c_cols == 1 ? 0 : j)];
        y[i * g.n + j] = v;
      }
    }
  });
}

// K order of the cube's img2col (FRACTAL_Z weights, C1 x Kh x Kw x C0): input-channel blocks of
// 16 outermost, then the kernel taps, then the 16 channels of the block, one fractal per (block,
// tap). Taps outside the padded input contribute zeros, which change no alignment.
void FiniteAccumulatorConv(const ConvGeometry& g, const float* x, const float* w, const float* b,
                           const float* z, const Activation& act, float* y, int bits) {
  const Window& win = g.window;
  const int64_t cg = g.in_per_group(), mg = g.out_per_group();
  const int64_t in_size = win.in_size(), out_size = win.out_size(), k_size = win.kernel_size();
  // One task per output element: (image, channel, position) flattened.
  ParallelFor(g.batch * g.out_channels * out_size, 256, [&](int64_t begin, int64_t end) {
    for (int64_t yi = begin; yi < end; ++yi) {
      const int64_t nm = yi / out_size, o = yi % out_size, m = nm % g.out_channels;
      const float* x_group = x + ((nm / g.out_channels) * g.in_channels + (m / mg) * cg) * in_size;
      const float* w_m = w + m * cg * k_size;
      const int64_t od = o / (win.out[1] * win.out[2]), oh = (o / win.out[2]) % win.out[1],
                    ow = o % win.out[2];
      CubeAccumulator acc(bits);
      for (int64_t c1 = 0; c1 < cg; c1 += kCubeFractalK) {
        const int64_t c_end = std::min(cg, c1 + kCubeFractalK);
        for (int64_t t = 0; t < k_size; ++t) {
          const int64_t kd = t / (win.kernel[1] * win.kernel[2]), kh = (t / win.kernel[2]) % win.kernel[1],
                        kw = t % win.kernel[2];
          const int64_t id = od * win.stride[0] - win.pad_begin[0] + kd * win.dilation[0];
          const int64_t ih = oh * win.stride[1] - win.pad_begin[1] + kh * win.dilation[1];
          const int64_t iw = ow * win.stride[2] - win.pad_begin[2] + kw * win.dilation[2];
          if (id < 0 || id >= win.in[0] || ih < 0 || ih >= win.in[1] || iw < 0 || iw >= win.in[2]) continue;
          const int64_t xi = (id * win.in[1] + ih) * win.in[2] + iw;
          for (int64_t c = c1; c < c_end; ++c)
            acc.Add(static_cast<double>(x_group[c * in_size + xi]) * w_m[c * k_size + t]);
          acc.EndFractal();
        }
      }
      float v = acc.Result() + (b ? b[m] : 0.f);
      if (z) v += z[yi];
      y[yi] = act.Apply(v);
    }
  });
}

}  // namespace npugap::exec::nn
