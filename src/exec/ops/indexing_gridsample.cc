// Indexing op family: GridSample (16), 4-D only as in opset 16. Follows PyTorch's grid_sample
// (aten/src/ATen/native/GridSampler.h), which the ONNX test data come from: grid holds (x, y) in
// [-1, 1]; bilinear and nearest first map the source coordinate through the padding mode, bicubic
// maps each of its 16 taps instead. With zeros padding, taps outside the input read 0.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "indexing_internal.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::indexing {
namespace {

enum class SampleMode { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct SampleParams {
  SampleMode mode = SampleMode::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
};

// Grid value in [-1, 1] to a pixel coordinate.
template <typename C>
C Unnormalize(C coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + 1) / 2 * static_cast<C>(size - 1)
                       : ((coord + 1) * static_cast<C>(size) - 1) / 2;
}

template <typename C>
C Clip(C x, int64_t size) {
  return std::min(static_cast<C>(size - 1), std::max(x, C(0)));
}

// Reflects x into [twice_low / 2, twice_high / 2] (the bounds are doubled to stay integral).
template <typename C>
C Reflect(C x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const C low = static_cast<C>(twice_low) / 2;
  const C span = static_cast<C>(twice_high - twice_low) / 2;
  x = std::abs(x - low);
  const C extra = std::fmod(x, span);
  const bool even_flips = std::fmod(std::floor(x / span), C(2)) == 0;
  return even_flips ? extra + low : span - extra + low;
}

template <typename C>
C ApplyPadding(C x, int64_t size, const SampleParams& p) {
  if (p.padding == Padding::kBorder) return Clip(x, size);
  if (p.padding == Padding::kReflection) {
    x = p.align_corners ? Reflect(x, 0, 2 * (size - 1)) : Reflect(x, -1, 2 * size - 1);
    return Clip(x, size);
  }
  return x;
}

// Integral pixel coordinate to an index; NaN and far-away values (which would overflow the cast)
// become an index outside any image, so their taps read zero.
template <typename C>
int64_t ToIndex(C v) {
  constexpr int64_t kFar = int64_t{1} << 40;
  if (!(v > -static_cast<C>(kFar) && v < static_cast<C>(kFar))) return -kFar;
  return static_cast<int64_t>(v);
}

template <typename C>
void CubicCoefficients(C t, C* w) {
  constexpr C a = C(-0.75);
  auto near = [](C x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [](C x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

// Fills kTaps (offset in one H x W plane, weight) pairs for the grid point (gx, gy).
template <int kTaps, typename C>
void SampleTaps(C gx, C gy, int64_t height, int64_t width, const SampleParams& p, int64_t* offset,
                C* weight) {
  auto add = [&](int& n, int64_t x, int64_t y, C w) {
    const bool inside = x >= 0 && x < width && y >= 0 && y < height;
    offset[n] = inside ? y * width + x : 0;
    weight[n] = inside ? w : C(0);
    ++n;
  };
  int n = 0;
  if constexpr (kTaps == 16) {
    const C ix = Unnormalize(gx, width, p.align_corners);
    const C iy = Unnormalize(gy, height, p.align_corners);
    const C x0 = std::floor(ix), y0 = std::floor(iy);
    C wx[4], wy[4];
    CubicCoefficients(ix - x0, wx);
    CubicCoefficients(iy - y0, wy);
    for (int j = 0; j < 4; ++j) {
      const int64_t y = ToIndex(ApplyPadding(y0 - 1 + j, height, p));
      for (int i = 0; i < 4; ++i) {
        const int64_t x = ToIndex(ApplyPadding(x0 - 1 + i, width, p));
        add(n, x, y, wx[i] * wy[j]);
      }
    }
  } else {
    const C ix = ApplyPadding(Unnormalize(gx, width, p.align_corners), width, p);
    const C iy = ApplyPadding(Unnormalize(gy, height, p.align_corners), height, p);
    if constexpr (kTaps == 1) {
      add(n, ToIndex(std::nearbyint(ix)), ToIndex(std::nearbyint(iy)), C(1));
    } else {
      const C x0 = std::floor(ix), y0 = std::floor(iy);
      const C fx = ix - x0, fy = iy - y0;
      const int64_t x = ToIndex(x0), y = ToIndex(y0);
      add(n, x, y, (1 - fx) * (1 - fy));
      add(n, x + 1, y, fx * (1 - fy));
      add(n, x, y + 1, (1 - fx) * fy);
      add(n, x + 1, y + 1, fx * fy);
    }
  }
}

template <int kTaps, typename T>
void GridSampleImpl(const Tensor& x, const Tensor& grid, const SampleParams& p, Tensor& out) {
  using A = Arith<T>;
  using C = typename A::Compute;
  const int64_t batch = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
  const int64_t out_h = grid.dim(1), out_w = grid.dim(2);
  const T* src = x.data<T>();
  const T* g = grid.data<T>();
  T* dst = out.data<T>();
  ParallelFor(batch * out_h, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, out_w * channels)),
              [&](int64_t begin, int64_t end) {
                std::vector<int64_t> offsets(static_cast<size_t>(out_w * kTaps));
                std::vector<C> weights(offsets.size());
                for (int64_t row = begin; row < end; ++row) {
                  const int64_t n = row / out_h;
                  const int64_t h = row - n * out_h;
                  const T* grid_row = g + row * out_w * 2;
                  for (int64_t w = 0; w < out_w; ++w) {
                    SampleTaps<kTaps>(A::Load(grid_row[2 * w]), A::Load(grid_row[2 * w + 1]), height, width,
                                      p, &offsets[static_cast<size_t>(w * kTaps)],
                                      &weights[static_cast<size_t>(w * kTaps)]);
                  }
                  for (int64_t c = 0; c < channels; ++c) {
                    const T* plane = src + (n * channels + c) * height * width;
                    T* out_row = dst + ((n * channels + c) * out_h + h) * out_w;
                    for (int64_t w = 0; w < out_w; ++w) {
                      const int64_t* o = &offsets[static_cast<size_t>(w * kTaps)];
                      const C* wt = &weights[static_cast<size_t>(w * kTaps)];
                      C sum = 0;
                      for (int k = 0; k < kTaps; ++k) sum += wt[k] * A::Load(plane[o[k]]);
                      out_row[w] = A::Store(sum);
                    }
                  }
                }
              });
}

}  // namespace

Status GridSampleKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& grid = ctx.input(1);
  if (x.rank() != 4)
    return ctx.Error(fmt::format("X must be 4-D (N, C, H, W), got shape {}", ir::ShapeToString(x.shape())));
  if (grid.rank() != 4 || grid.dim(0) != x.dim(0) || grid.dim(3) != 2) {
    return ctx.Error(fmt::format("grid shape {} must be (N = {}, H_out, W_out, 2)",
                                 ir::ShapeToString(grid.shape()), x.dim(0)));
  }
  if (grid.dtype() != x.dtype()) return ctx.Error("X and grid element types differ");
  SampleParams p;
  const std::string mode = ctx.node.GetString("mode", "bilinear");
  if (mode == "bilinear") {
    p.mode = SampleMode::kBilinear;
  } else if (mode == "nearest") {
    p.mode = SampleMode::kNearest;
  } else if (mode == "bicubic") {
    p.mode = SampleMode::kBicubic;
  } else {
    return ctx.Error(fmt::format("unknown mode '{}'", mode));
  }
  const std::string padding = ctx.node.GetString("padding_mode", "zeros");
  if (padding == "zeros") {
    p.padding = Padding::kZeros;
  } else if (padding == "border") {
    p.padding = Padding::kBorder;
  } else if (padding == "reflection") {
    p.padding = Padding::kReflection;
  } else {
    return ctx.Error(fmt::format("unknown padding_mode '{}'", padding));
  }
  p.align_corners = ctx.node.GetInt("align_corners", 0) != 0;
  NPUGAP_ASSIGN_OR_RETURN(Tensor out,
                          Tensor::Create(x.dtype(), {x.dim(0), x.dim(1), grid.dim(1), grid.dim(2)}));
  if (out.numel() > 0 && (x.dim(2) == 0 || x.dim(3) == 0))
    return ctx.Error("X has an empty spatial dimension");
  const bool ok = DispatchFloating(x.dtype(), [&]<typename T>() {
    if (out.numel() == 0) return;
    switch (p.mode) {
      case SampleMode::kNearest:
        GridSampleImpl<1, T>(x, grid, p, out);
        break;
      case SampleMode::kBilinear:
        GridSampleImpl<4, T>(x, grid, p, out);
        break;
      case SampleMode::kBicubic:
        GridSampleImpl<16, T>(x, grid, p, out);
        break;
    }
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace npugap::exec::indexing
