// INT8 quantize-dequantize with per-tensor or per-channel scale and zero point, as ONNX
// QuantizeLinear / DequantizeLinear compute it: q = clamp(round(x / scale) + zero_point, -128, 127),
// x' = (q - zero_point) * scale. The precision plan uses it where a model or a mode stores INT8.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "npugap/numerics/format.h"
#include "rounding_core.h"

namespace npugap::numerics {
namespace {

// Element i -> its channel along `axis`. An axis outside the shape, or a shape whose size is not the
// array's, means one channel (per tensor): this layer has no error channel, the callers check shapes.
struct ChannelMap {
  int64_t inner = 1, channels = 1;
  ChannelMap(std::span<const int64_t> shape, int axis, size_t size) {
    const int64_t total = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    if (axis < 0 || axis >= static_cast<int>(shape.size()) || total != static_cast<int64_t>(size)) return;
    channels = std::max<int64_t>(shape[axis], 1);
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    inner = std::max<int64_t>(inner, 1);
  }
  int64_t operator()(size_t i) const { return (static_cast<int64_t>(i) / inner) % channels; }
};

float RoundToInteger(float v, Rounding rounding, size_t index) {
  switch (rounding) {
    case Rounding::kNearestEven:
      return std::nearbyint(v);  // the default FE_TONEAREST mode
    case Rounding::kTowardZero:
      return std::trunc(v);
    case Rounding::kHalfAway:
      return std::round(v);
    case Rounding::kStochastic: {
      // Seed 0, element index: the INT8 entry point has no seed argument.
      const float u = static_cast<float>(detail::StochasticBits(0, index) >> 8) * 0x1p-24f;
      const float lo = std::floor(v);
      return (v - lo) > u ? lo + 1.0f : lo;
    }
  }
  return v;
}

}  // namespace

Int8Params CalibrateInt8(std::span<const float> x, std::span<const int64_t> shape, int axis, bool symmetric) {
  const ChannelMap map(shape, axis, x.size());
  const auto channels = static_cast<size_t>(map.channels);
  // The range always contains 0 so that zero is exactly representable (padding, ReLU outputs).
  std::vector<float> lo(channels, 0.0f), hi(channels, 0.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) continue;  // a NaN or inf must not decide the scale
    const auto c = static_cast<size_t>(map(i));
    lo[c] = std::min(lo[c], x[i]);
    hi[c] = std::max(hi[c], x[i]);
  }
  Int8Params p;
  p.axis = map.channels > 1 || (axis >= 0 && axis < static_cast<int>(shape.size())) ? axis : -1;
  p.symmetric = symmetric;
  for (size_t c = 0; c < channels; ++c) {
    if (symmetric) {
      const float amax = std::max(-lo[c], hi[c]);
      p.scale.push_back(amax > 0.0f ? amax / 127.0f : 1.0f);
    } else {
      const float range = hi[c] - lo[c];
      const float scale = range > 0.0f ? range / 255.0f : 1.0f;
      p.scale.push_back(scale);
      p.zero_point.push_back(
          static_cast<int32_t>(std::clamp(std::nearbyint(-128.0f - lo[c] / scale), -128.0f, 127.0f)));
    }
  }
  return p;
}

RoundStats QuantizeDequantizeInt8(std::span<float> x, std::span<const int64_t> shape, const Int8Params& p,
                                  Rounding rounding) {
  RoundStats stats;
  if (p.scale.empty()) return stats;
  const ChannelMap map(shape, p.scale.size() > 1 ? p.axis : -1, x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const auto c = static_cast<size_t>(map(i)) % p.scale.size();
    const float scale = p.scale[c];
    const int32_t zp = p.zero_point.empty() ? 0 : p.zero_point[c % p.zero_point.size()];
    const float v = x[i];
    float q;
    if (std::isnan(v)) {
      q = static_cast<float>(zp);  // INT8 has no NaN: like saturation mode, NaN -> 0
      ++stats.saturated;
    } else {
      q = RoundToInteger(v / scale, rounding, i) + static_cast<float>(zp);
      if (q < -128.0f || q > 127.0f) {
        if (std::isfinite(v)) ++stats.overflow;
        ++stats.saturated;
        q = std::clamp(q, -128.0f, 127.0f);
      }
    }
    const float out = (q - static_cast<float>(zp)) * scale;
    if (out == 0.0f && v != 0.0f && !std::isnan(v)) ++stats.flushed;
    x[i] = out;
  }
  return stats;
}

}  // namespace npugap::numerics
