// Indexing op family, resampling part: Resize (10, 11, 13) and Upsample (7, 9).
//
// Follows the ONNX reference (onnx/backend/test/case/node/resize.py): every output coordinate is
// mapped to an input coordinate x_original per axis, and the output is a separable weighted sum of
// the input around it. Each axis gets a table of taps (input index, weight) per output coordinate;
// nearest uses 1 tap and runs as a pure gather on any fixed-size dtype, linear 2 taps and cubic 4
// taps run as one pass per resized axis in float (double for float64 input). Taps outside the
// input read the edge element (the reference pads with edge values), unless exclude_outside drops
// them and renormalizes the weights.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "indexing_internal.h"
#include "npugap/exec/broadcast.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec::indexing {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Coordinates {
  kHalfPixel,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
// kLegacy: Resize-10 and Upsample, which predate nearest_mode; like onnxruntime they take the floor
// when upsampling and the ceiling when downsampling.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kLegacy };

struct ResizeParams {
  Mode mode = Mode::kNearest;
  Coordinates coordinates = Coordinates::kAsymmetric;
  NearestMode nearest = NearestMode::kLegacy;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  float extrapolation_value = 0.0f;
  Shape out_shape;
  std::vector<double> scales;         // per axis, as given or output / input for sizes
  std::vector<double> scaled_length;  // per axis, input * scale (the reference's "output_width")
  std::vector<double> roi;            // [starts..., ends...] for tf_crop_and_resize
};

// The taps of one axis: for output coordinate o, taps index[o*taps + t] with weight[o*taps + t]
// (index clamped into the input), or outside[o] when tf_crop_and_resize extrapolates.
struct AxisTaps {
  int taps = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;
  bool identity = false;  // output equals input along this axis
};

double OriginalCoordinate(const ResizeParams& p, size_t axis, int64_t x_resized, int64_t in_len) {
  const double x = static_cast<double>(x_resized);
  const double scale = p.scales[axis];
  const double out_len = p.scaled_length[axis];
  switch (p.coordinates) {
    case Coordinates::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    // The spec (and onnxruntime) use 0 for a single output; the Python reference -0.5; both give
    // the same linear result.
    case Coordinates::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case Coordinates::kAlignCorners:
      return out_len == 1 ? 0.0 : x * static_cast<double>(in_len - 1) / (out_len - 1);
    case Coordinates::kAsymmetric:
      return x / scale;
    case Coordinates::kTfHalfPixelForNn:
      return (x + 0.5) / scale;
    case Coordinates::kTfCropAndResize: {
      const size_t rank = p.scales.size();
      const double start = p.roi[axis];
      const double end = p.roi[axis + rank];
      const double span = static_cast<double>(in_len - 1);
      if (out_len == 1) return 0.5 * (start + end) * span;
      return start * span + x * (end - start) * span / (out_len - 1);
    }
  }
  return 0.0;
}

int64_t NearestIndex(NearestMode mode, double x, double scale) {
  switch (mode) {
    case NearestMode::kRoundPreferFloor:
      return static_cast<int64_t>(std::ceil(x - 0.5));
    case NearestMode::kRoundPreferCeil:
      return static_cast<int64_t>(std::floor(x + 0.5));
    case NearestMode::kFloor:
      return static_cast<int64_t>(std::floor(x));
    case NearestMode::kCeil:
      return static_cast<int64_t>(std::ceil(x));
    case NearestMode::kLegacy:
      return static_cast<int64_t>(scale < 1 ? std::ceil(x) : std::floor(x));
  }
  return 0;
}

// Keys' cubic convolution weights for the taps at floor(x) - 1 .. floor(x) + 2, ratio = x - floor(x).
void CubicWeights(double ratio, double a, double* w) {
  const double r1 = ratio + 1, r2 = 1 - ratio, r3 = 2 - ratio;
  w[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
  w[1] = ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1;
  w[2] = ((a + 2) * r2 - (a + 3)) * r2 * r2 + 1;
  w[3] = ((a * r3 - 5 * a) * r3 + 8 * a) * r3 - 4 * a;
}

AxisTaps BuildAxisTaps(const ResizeParams& p, size_t axis, int64_t in_len) {
  const int64_t out_len = p.out_shape[axis];
  AxisTaps t;
  t.taps = p.mode == Mode::kNearest ? 1 : (p.mode == Mode::kLinear ? 2 : 4);
  t.index.resize(static_cast<size_t>(out_len * t.taps));
  t.weight.resize(t.index.size());
  t.outside.assign(static_cast<size_t>(out_len), 0);
  t.identity = out_len == in_len;
  for (int64_t o = 0; o < out_len; ++o) {
    double x = OriginalCoordinate(p, axis, o, in_len);
    int64_t* index = &t.index[static_cast<size_t>(o * t.taps)];
    double* weight = &t.weight[static_cast<size_t>(o * t.taps)];
    if (p.coordinates == Coordinates::kTfCropAndResize && !(x >= 0 && x <= static_cast<double>(in_len - 1))) {
      t.outside[static_cast<size_t>(o)] = 1;
      std::fill_n(index, t.taps, 0);
      std::fill_n(weight, t.taps, 0.0);
      t.identity = false;
      continue;
    }
    // Every tap beyond two pixels outside reads the edge anyway; bounding x keeps the casts defined.
    x = std::clamp(x, -2.0, static_cast<double>(in_len + 1));
    if (p.mode == Mode::kNearest) {
      index[0] = NearestIndex(p.nearest, x, p.scales[axis]);
      weight[0] = 1;
    } else {
      const double base = std::floor(x);
      const double ratio = x - base;
      const int64_t first = static_cast<int64_t>(base) - (p.mode == Mode::kCubic ? 1 : 0);
      if (p.mode == Mode::kLinear) {
        weight[0] = 1 - ratio;
        weight[1] = ratio;
      } else {
        CubicWeights(ratio, p.cubic_a, weight);
      }
      for (int k = 0; k < t.taps; ++k) index[k] = first + k;
      if (p.exclude_outside) {
        double sum = 0;
        for (int k = 0; k < t.taps; ++k) {
          if (index[k] < 0 || index[k] >= in_len) weight[k] = 0;
          sum += weight[k];
        }
        if (sum != 0) {
          for (int k = 0; k < t.taps; ++k) weight[k] /= sum;
        }
      }
    }
    double weight_on_self = 0;  // identity: all the weight on input index o
    for (int k = 0; k < t.taps; ++k) {
      index[k] = std::clamp<int64_t>(index[k], 0, in_len - 1);
      if (index[k] == o) {
        weight_on_self += weight[k];
      } else if (weight[k] != 0) {
        t.identity = false;
      }
    }
    if (std::abs(weight_on_self - 1) > 1e-12) t.identity = false;
  }
  return t;
}

// Stores v in the element type t at dst (for the extrapolation value of a nearest resize).
void StoreFloatAs(DType t, float v, void* dst) {
  if (t == DType::kBool) {
    *static_cast<bool*>(dst) = v != 0;
    return;
  }
  DispatchArithmetic(t, [&]<typename T>() {
    *static_cast<T*>(dst) = Arith<T>::Store(static_cast<typename Arith<T>::Compute>(v));
  });
}

// Nearest resize as an N-d gather: out[o0, ..., on] = in[idx0[o0], ..., idxn[on]].
Status ResizeNearest(KernelContext& ctx, const Tensor& x, const std::vector<AxisTaps>& axes,
                     float extrapolation, Tensor& out) {
  const size_t rank = axes.size();
  const std::vector<int64_t> in_strides = ContiguousStrides(x.shape());
  const Shape& out_shape = out.shape();
  const int64_t last = out_shape[rank - 1];
  const int64_t rows = out.numel() / last;
  const bool ok = DispatchBySize(x.dtype(), [&]<typename T>() {
    T fill{};
    StoreFloatAs(x.dtype(), extrapolation, &fill);
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    const AxisTaps& last_axis = axes[rank - 1];
    ParallelFor(rows, std::max<int64_t>(1, 16384 / last), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        int64_t base = 0;
        bool outside = false;
        int64_t rest = row;
        for (size_t d = rank - 1; d-- > 0;) {
          const int64_t c = rest % out_shape[d];
          rest /= out_shape[d];
          outside |= axes[d].outside[static_cast<size_t>(c)] != 0;
          base += axes[d].index[static_cast<size_t>(c)] * in_strides[d];
        }
        T* out_row = dst + row * last;
        if (outside) {
          std::fill_n(out_row, last, fill);
          continue;
        }
        const T* in_row = src + base;
        for (int64_t j = 0; j < last; ++j) {
          out_row[j] = last_axis.outside[static_cast<size_t>(j)]
                           ? fill
                           : in_row[last_axis.index[static_cast<size_t>(j)]];
        }
      }
    });
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  return Status::Ok();
}

// One separable pass along an axis: [outer, in_len, inner] -> [outer, out_len, inner].
template <int kTaps, typename C>
void InterpolateAxis(const C* in, C* out, int64_t outer, int64_t in_len, int64_t out_len, int64_t inner,
                     const AxisTaps& taps, C extrapolation) {
  std::vector<C> weights(taps.weight.begin(), taps.weight.end());
  ParallelFor(outer * out_len, std::max<int64_t>(1, 8192 / std::max<int64_t>(inner, 1)),
              [&](int64_t begin, int64_t end) {
                int64_t o = begin / out_len;
                int64_t x = begin - o * out_len - 1;
                for (int64_t r = begin; r < end; ++r) {
                  if (++x == out_len) {
                    x = 0;
                    ++o;
                  }
                  C* dst = out + r * inner;
                  if (taps.outside[static_cast<size_t>(x)]) {
                    std::fill_n(dst, inner, extrapolation);
                    continue;
                  }
                  const int64_t* index = &taps.index[static_cast<size_t>(x * kTaps)];
                  const C* w = &weights[static_cast<size_t>(x * kTaps)];
                  const C* plane = in + o * in_len * inner;
                  if (inner == 1) {
                    C sum = 0;
                    for (int k = 0; k < kTaps; ++k) sum += w[k] * plane[index[k]];
                    dst[0] = sum;
                    continue;
                  }
                  const C* rows[kTaps];
                  for (int k = 0; k < kTaps; ++k) rows[k] = plane + index[k] * inner;
                  for (int64_t i = 0; i < inner; ++i) {
                    C sum = 0;
                    for (int k = 0; k < kTaps; ++k) sum += w[k] * rows[k][i];
                    dst[i] = sum;
                  }
                }
              });
}

// Linear / cubic resize of a floating tensor: one pass per resized axis, innermost axis first
// (the reference's order), computing in Arith<T>::Compute.
Status ResizeInterpolated(KernelContext& ctx, const Tensor& x, const std::vector<AxisTaps>& axes,
                          float extrapolation, Tensor& out) {
  const bool ok = DispatchFloating(x.dtype(), [&]<typename T>() {
    using A = Arith<T>;
    using C = typename A::Compute;
    constexpr bool kNative = std::is_same_v<T, C>;  // float / double: no conversion buffers
    std::vector<size_t> passes;
    for (size_t d = axes.size(); d-- > 0;) {
      if (!axes[d].identity) passes.push_back(d);
    }
    std::vector<C> buffers[2];
    const C* src = nullptr;
    if constexpr (kNative) {
      src = x.data<T>();
    } else {
      buffers[1].resize(static_cast<size_t>(x.numel()));
      for (int64_t i = 0; i < x.numel(); ++i) buffers[1][static_cast<size_t>(i)] = A::Load(x.data<T>()[i]);
      src = buffers[1].data();
    }
    Shape shape = x.shape();
    for (size_t p = 0; p < passes.size(); ++p) {
      const size_t d = passes[p];
      const int64_t outer = ShapeProduct(shape, 0, d);
      const int64_t inner = ShapeProduct(shape, d + 1, shape.size());
      const int64_t in_len = shape[d];
      shape[d] = out.dim(static_cast<int64_t>(d));
      C* dst = nullptr;
      if (kNative && p + 1 == passes.size()) {
        dst = reinterpret_cast<C*>(out.data<T>());
      } else {
        std::vector<C>& buffer = buffers[p % 2];  // never the one src points into
        buffer.resize(static_cast<size_t>(outer * shape[d] * inner));
        dst = buffer.data();
      }
      if (axes[d].taps == 2) {
        InterpolateAxis<2>(src, dst, outer, in_len, shape[d], inner, axes[d], C(extrapolation));
      } else {
        InterpolateAxis<4>(src, dst, outer, in_len, shape[d], inner, axes[d], C(extrapolation));
      }
      src = dst;
    }
    T* dst = out.data<T>();
    if (static_cast<const void*>(src) != static_cast<const void*>(dst)) {
      for (int64_t i = 0; i < out.numel(); ++i) dst[i] = A::Store(src[i]);
    }
  });
  if (!ok) return ctx.UnsupportedDType(x.dtype());
  return Status::Ok();
}

Expected<std::vector<double>> ReadFloats(const KernelContext& ctx, const Tensor& t, std::string_view what) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  const bool ok = DispatchFloating(t.dtype(), [&]<typename T>() {
    for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = Arith<T>::Load(t.data<T>()[i]);
  });
  if (!ok)
    return ctx.Error(fmt::format("{} must be a floating tensor, got {}", what, ir::DTypeName(t.dtype())));
  return v;
}

// Output shape and per-axis scales from either scales (output = floor(input * scale)) or sizes.
Status SetShapeAndScales(const KernelContext& ctx, const Tensor& x, const std::vector<double>* scales,
                         const Tensor* sizes, ResizeParams& p) {
  const size_t rank = static_cast<size_t>(x.rank());
  p.out_shape.assign(rank, 0);
  p.scales.assign(rank, 1.0);
  p.scaled_length.assign(rank, 0.0);
  if (scales != nullptr) {
    if (scales->size() != rank) {
      return ctx.Error(fmt::format("scales has {} elements for an input of rank {}", scales->size(), rank));
    }
    for (size_t d = 0; d < rank; ++d) {
      const double s = (*scales)[d];
      if (!(s > 0) || !std::isfinite(s))
        return ctx.Error(fmt::format("scale {} on axis {} must be > 0", s, d));
      p.scales[d] = s;
      p.scaled_length[d] = s * static_cast<double>(x.dim(static_cast<int64_t>(d)));
      p.out_shape[d] = static_cast<int64_t>(std::floor(p.scaled_length[d]));
    }
    return Status::Ok();
  }
  std::vector<int64_t> values;
  NPUGAP_RETURN_IF_ERROR(ReadInt64s(ctx, *sizes, &values));
  if (values.size() != rank) {
    return ctx.Error(fmt::format("sizes has {} elements for an input of rank {}", values.size(), rank));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (values[d] < 0) return ctx.Error(fmt::format("size {} on axis {} is negative", values[d], d));
    const int64_t in = x.dim(static_cast<int64_t>(d));
    p.out_shape[d] = values[d];
    p.scales[d] = in == 0 ? 1.0 : static_cast<double>(values[d]) / static_cast<double>(in);
    p.scaled_length[d] = static_cast<double>(values[d]);
  }
  return Status::Ok();
}

Expected<Mode> ParseMode(const KernelContext& ctx, bool allow_cubic) {
  const std::string mode = ctx.node.GetString("mode", "nearest");
  if (mode == "nearest") return Mode::kNearest;
  if (mode == "linear" || mode == "bilinear") return Mode::kLinear;
  if (mode == "cubic" && allow_cubic) return Mode::kCubic;
  return ctx.Error(fmt::format("unknown mode '{}'", mode));
}

Status ParseResize11Attributes(const KernelContext& ctx, ResizeParams& p) {
  const std::string coordinates = ctx.node.GetString("coordinate_transformation_mode", "half_pixel");
  if (coordinates == "half_pixel") {
    p.coordinates = Coordinates::kHalfPixel;
  } else if (coordinates == "pytorch_half_pixel") {
    p.coordinates = Coordinates::kPytorchHalfPixel;
  } else if (coordinates == "align_corners") {
    p.coordinates = Coordinates::kAlignCorners;
  } else if (coordinates == "asymmetric") {
    p.coordinates = Coordinates::kAsymmetric;
  } else if (coordinates == "tf_half_pixel_for_nn") {
    p.coordinates = Coordinates::kTfHalfPixelForNn;
  } else if (coordinates == "tf_crop_and_resize") {
    p.coordinates = Coordinates::kTfCropAndResize;
  } else {
    return ctx.Error(fmt::format("unknown coordinate_transformation_mode '{}'", coordinates));
  }
  const std::string nearest = ctx.node.GetString("nearest_mode", "round_prefer_floor");
  if (nearest == "round_prefer_floor") {
    p.nearest = NearestMode::kRoundPreferFloor;
  } else if (nearest == "round_prefer_ceil") {
    p.nearest = NearestMode::kRoundPreferCeil;
  } else if (nearest == "floor") {
    p.nearest = NearestMode::kFloor;
  } else if (nearest == "ceil") {
    p.nearest = NearestMode::kCeil;
  } else {
    return ctx.Error(fmt::format("unknown nearest_mode '{}'", nearest));
  }
  p.cubic_a = ctx.node.GetFloat("cubic_coeff_a", -0.75f);
  p.exclude_outside = ctx.node.GetInt("exclude_outside", 0) != 0;
  p.extrapolation_value = ctx.node.GetFloat("extrapolation_value", 0.0f);
  return Status::Ok();
}

Status RunResize(KernelContext& ctx, const Tensor& x, const ResizeParams& p) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(x.dtype(), p.out_shape));
  const size_t rank = static_cast<size_t>(x.rank());
  if (rank == 0) {
    ctx.outputs[0] = x.Clone();
    return Status::Ok();
  }
  if (out.numel() > 0) {
    for (size_t d = 0; d < rank; ++d) {
      if (x.dim(static_cast<int64_t>(d)) == 0)
        return ctx.Error(fmt::format("cannot resize an empty axis {}", d));
    }
    std::vector<AxisTaps> axes;
    for (size_t d = 0; d < rank; ++d) axes.push_back(BuildAxisTaps(p, d, x.dim(static_cast<int64_t>(d))));
    if (p.mode == Mode::kNearest) {
      NPUGAP_RETURN_IF_ERROR(ResizeNearest(ctx, x, axes, p.extrapolation_value, out));
    } else {
      NPUGAP_RETURN_IF_ERROR(ResizeInterpolated(ctx, x, axes, p.extrapolation_value, out));
    }
  }
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

}  // namespace

// Resize. 10: inputs (X, scales), modes nearest / linear, asymmetric coordinates, legacy nearest
// rounding. 11: (X, roi, scales, sizes) with the coordinate_transformation_mode, nearest_mode and
// cubic attributes; scales or sizes may be empty. 13: roi and scales optional. With scales the
// output is floor(input * scale) (roi does not enter, as in onnxruntime and the reference).
Status ResizeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  ResizeParams p;
  std::vector<double> scales;
  const Tensor* sizes = nullptr;
  if (ctx.opset < 11) {
    NPUGAP_ASSIGN_OR_RETURN(p.mode, ParseMode(ctx, /*allow_cubic=*/false));
    if (!ctx.has_input(1)) return ctx.Error("input scales is required");
    NPUGAP_ASSIGN_OR_RETURN(scales, ReadFloats(ctx, ctx.input(1), "scales"));
  } else {
    NPUGAP_ASSIGN_OR_RETURN(p.mode, ParseMode(ctx, /*allow_cubic=*/true));
    NPUGAP_RETURN_IF_ERROR(ParseResize11Attributes(ctx, p));
    const bool has_scales = ctx.has_input(2) && ctx.input(2).numel() > 0;
    const bool has_sizes = ctx.has_input(3) && ctx.input(3).numel() > 0;
    if (has_scales == has_sizes) return ctx.Error("exactly one of scales and sizes must be given");
    if (has_scales) {
      NPUGAP_ASSIGN_OR_RETURN(scales, ReadFloats(ctx, ctx.input(2), "scales"));
    } else {
      sizes = &ctx.input(3);
    }
    if (p.coordinates == Coordinates::kTfCropAndResize) {
      p.roi.assign(static_cast<size_t>(2 * x.rank()), 1.0);
      std::fill_n(p.roi.begin(), x.rank(), 0.0);
      if (ctx.has_input(1) && ctx.input(1).numel() > 0) {
        NPUGAP_ASSIGN_OR_RETURN(p.roi, ReadFloats(ctx, ctx.input(1), "roi"));
        if (p.roi.size() != static_cast<size_t>(2 * x.rank())) {
          return ctx.Error(
              fmt::format("roi has {} elements, expected 2 * rank = {}", p.roi.size(), 2 * x.rank()));
        }
      }
    }
  }
  NPUGAP_RETURN_IF_ERROR(SetShapeAndScales(ctx, x, sizes == nullptr ? &scales : nullptr, sizes, p));
  return RunResize(ctx, x, p);
}

// Upsample (7: scales attribute; 9: scales input): Resize-10 by another name.
Status UpsampleKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  ResizeParams p;
  NPUGAP_ASSIGN_OR_RETURN(p.mode, ParseMode(ctx, /*allow_cubic=*/false));
  std::vector<double> scales;
  if (ctx.opset < 9) {
    if (ctx.node.FindAttribute("scales") == nullptr) return ctx.Error("attribute scales is required");
    for (float s : ctx.node.GetFloats("scales")) scales.push_back(s);
  } else {
    if (!ctx.has_input(1)) return ctx.Error("input scales is required");
    NPUGAP_ASSIGN_OR_RETURN(scales, ReadFloats(ctx, ctx.input(1), "scales"));
  }
  NPUGAP_RETURN_IF_ERROR(SetShapeAndScales(ctx, x, &scales, nullptr, p));
  return RunResize(ctx, x, p);
}

}  // namespace npugap::exec::indexing
