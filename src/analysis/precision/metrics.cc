#include "npugap/analysis/precision/metrics.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "metrics_simd.h"
#include "npugap/exec/compare.h"

namespace npugap::analysis::precision {
namespace {

// Element i as double, with fast paths for the two dtypes the comparison sees almost always.
struct Reader {
  const ir::Tensor& t;
  double operator()(int64_t i) const {
    switch (t.dtype()) {
      case ir::DType::kFloat32:
        return static_cast<double>(t.data<float>()[i]);
      case ir::DType::kFloat64:
        return t.data<double>()[i];
      default:
        return exec::ElementAsDouble(t, i);
    }
  }
};

template <typename T>
struct Pointer {
  const T* p;
  double operator()(int64_t i) const { return static_cast<double>(p[i]); }
};

bool IsComparable(ir::DType d) {
  return d == ir::DType::kFloat32 || d == ir::DType::kFloat64 || d == ir::DType::kFloat16 ||
         d == ir::DType::kBFloat16;
}

}  // namespace

Expected<Thresholds> ParseThresholds(std::string_view text) {
  Thresholds t;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) {
      if (comma == text.size()) break;
      return Status::InvalidArgument(fmt::format("--thresholds '{}': empty item", text));
    }
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument(fmt::format("--thresholds '{}': '{}' is not KEY=VALUE", text, item));
    }
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    double v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v)) {
      return Status::InvalidArgument(
          fmt::format("--thresholds: '{}' is not a number (key '{}')", value, key));
    }
    if (key == "cos" || key == "cosine") {
      t.cosine = v;
    } else if (key == "max_abs") {
      t.max_abs = v;
    } else if (key == "cos_floor") {
      t.cosine_floor = v;
    } else if (key == "max_abs_ceiling") {
      t.max_abs_ceiling = v;
    } else {
      return Status::InvalidArgument(fmt::format(
          "--thresholds: unknown key '{}' (valid: cos, max_abs, cos_floor, max_abs_ceiling)", key));
    }
    if (comma == text.size()) break;
  }
  if (t.cosine < -1 || t.cosine > 1 || t.cosine_floor < -1 || t.cosine_floor > 1) {
    return Status::InvalidArgument(
        fmt::format("--thresholds '{}': cosine thresholds must lie in [-1, 1]", text));
  }
  if (t.max_abs < 0 || t.max_abs_ceiling < 0) {
    return Status::InvalidArgument(fmt::format("--thresholds '{}': error thresholds must be >= 0", text));
  }
  return t;
}

// One pass over the pairs in element order. The sums are plain sequential double additions, so
// the metrics do not depend on how the pass is split (every caller gets the same bits); the
// data-dependent choices (r == 0, the relative-error buckets) are selects rather than branches,
// because ~half of a ReLU's references are zero and the buckets split rounding errors at random:
// as branches they mispredicted on most elements (12 -> 7 ns per element, one core, measured).
template <typename TargetAt, typename ReferenceAt>
void ErrorAccumulator::Accumulate(TargetAt tr, ReferenceAt rf, int64_t count, double eps) {
  // eps is a power of two, so multiplying by its inverse gives the same bits as dividing by it.
  const double inv_eps = 1 / eps;
  int64_t n = 0, lt_1e3 = 0, lt_5e3 = 0;
  double dot = dot_, tt = tt_, rr = rr_, sq_err = sq_err_, max_abs = max_abs_, max_rel = max_rel_;
  double ref_max = ref_max_, t_sum = t_sum_, r_sum = r_sum_;
  double t_max = t_max_, t_min = t_min_, r_max = r_max_, r_min = r_min_;
  for (int64_t i = 0; i < count; ++i) {
    const double t = tr(i), r = rf(i);
    const bool t_ok = std::isfinite(t), r_ok = std::isfinite(r);
    if (!t_ok || !r_ok) [[unlikely]] {
      if (!t_ok) ++target_non_finite_;
      // Both non-finite in the same way (NaN and NaN, or the same infinity) is agreement.
      const bool same = (std::isnan(t) && std::isnan(r)) || (!t_ok && !r_ok && t == r);
      if (!same) ++mismatch_;
      continue;
    }
    ++n;
    const double d = t - r, ad = std::abs(d);
    dot += t * r;
    tt += t * t;
    rr += r * r;
    sq_err += d * d;
    max_abs = std::max(max_abs, ad);
    ref_max = std::max(ref_max, std::abs(r));
    t_sum += t, r_sum += r;
    t_max = std::max(t_max, t), t_min = std::min(t_min, t);
    r_max = std::max(r_max, r), r_min = std::min(r_min, r);
    const double shifted = std::abs((t + eps) - eps) * inv_eps, scaled = ad / std::abs(r);
    const uint64_t zero = -static_cast<uint64_t>(r == 0);  // all ones where the reference is 0
    const double rel = std::bit_cast<double>((zero & std::bit_cast<uint64_t>(shifted)) |
                                             (~zero & std::bit_cast<uint64_t>(scaled)));
    max_rel = std::max(max_rel, rel);
    lt_1e3 += rel < 0.001 ? 1 : 0;
    lt_5e3 += rel < 0.005 ? 1 : 0;
  }
  n_ += n, lt_1e3_ += lt_1e3, lt_5e3_ += lt_5e3;
  dot_ = dot, tt_ = tt, rr_ = rr, sq_err_ = sq_err, max_abs_ = max_abs, max_rel_ = max_rel;
  ref_max_ = ref_max, t_sum_ = t_sum, r_sum_ = r_sum;
  t_max_ = t_max, t_min_ = t_min, r_max_ = r_max, r_min_ = r_min;
}

// The finite pairs' sums and ranges, in element order (the other half of the SIMD split).
template <typename TargetAt, typename ReferenceAt>
void ErrorAccumulator::AccumulateSums(TargetAt tr, ReferenceAt rf, int64_t count) {
  double dot = dot_, tt = tt_, rr = rr_, sq_err = sq_err_, t_sum = t_sum_, r_sum = r_sum_;
  double t_max = t_max_, t_min = t_min_, r_max = r_max_, r_min = r_min_;
  for (int64_t i = 0; i < count; ++i) {
    const double t = tr(i), r = rf(i), d = t - r;
    dot += t * r;
    tt += t * t;
    rr += r * r;
    sq_err += d * d;
    t_sum += t, r_sum += r;
    t_max = std::max(t_max, t), t_min = std::min(t_min, t);
    r_max = std::max(r_max, r), r_min = std::min(r_min, r);
  }
  n_ += count;
  dot_ = dot, tt_ = tt, rr_ = rr, sq_err_ = sq_err, t_sum_ = t_sum, r_sum_ = r_sum;
  t_max_ = t_max, t_min_ = t_min, r_max_ = r_max, r_min_ = r_min;
}

// float32 targets: per chunk (L1-sized, so the second pass reads cached data) the maxima and
// buckets in AVX2 and the sums in order; a chunk with a non-finite pair takes the scalar loop.
// Same bits as Accumulate over the whole tensor (3.9 vs 7.5 ns per element, one core, measured).
template <typename R>
void ErrorAccumulator::AccumulateFloatTarget(const float* t, const R* r, int64_t count, double eps) {
  constexpr int64_t kChunk = 2048;
  for (int64_t b = 0; b < count; b += kChunk) {
    const int64_t n = std::min(kChunk, count - b);
    internal::ErrorExtremes e{max_abs_, ref_max_, max_rel_, 0, 0};
    if (internal::AddFiniteExtremes(t + b, r + b, n, eps, e)) {
      max_abs_ = e.max_abs, ref_max_ = e.ref_max, max_rel_ = e.max_rel;
      lt_1e3_ += e.lt_1e3, lt_5e3_ += e.lt_5e3;
      AccumulateSums(Pointer<float>{t + b}, Pointer<R>{r + b}, n);
    } else {
      Accumulate(Pointer<float>{t + b}, Pointer<R>{r + b}, n, eps);
    }
  }
}

Status ErrorAccumulator::Add(const ir::Tensor& target, const ir::Tensor& reference) {
  if (target.shape() != reference.shape()) {
    return Status::InvalidArgument(fmt::format("shape {} of the target differs from the reference's {}",
                                               ir::ShapeToString(target.shape()),
                                               ir::ShapeToString(reference.shape())));
  }
  if (!IsComparable(target.dtype()) || !IsComparable(reference.dtype())) {
    return Status::InvalidArgument(fmt::format("cannot compare {} with {}", ir::DTypeName(target.dtype()),
                                               ir::DTypeName(reference.dtype())));
  }
  // msprobe shifts zero references (and the target at those places) by the reference dtype's eps.
  const double eps = reference.dtype() == ir::DType::kFloat64 ? std::numeric_limits<double>::epsilon()
                                                              : std::numeric_limits<float>::epsilon();
  const int64_t n = target.numel();
  const ir::DType td = target.dtype(), rd = reference.dtype();
  if (td == ir::DType::kFloat32 && rd == ir::DType::kFloat32) {
    AccumulateFloatTarget(target.data<float>(), reference.data<float>(), n, eps);
  } else if (td == ir::DType::kFloat32 && rd == ir::DType::kFloat64) {
    AccumulateFloatTarget(target.data<float>(), reference.data<double>(), n, eps);
  } else if (td == ir::DType::kFloat64 && rd == ir::DType::kFloat64) {
    Accumulate(Pointer<double>{target.data<double>()}, Pointer<double>{reference.data<double>()}, n, eps);
  } else {
    Accumulate(Reader{target}, Reader{reference}, n, eps);
  }
  return Status::Ok();
}

void ErrorAccumulator::AddRoundStats(const numerics::RoundStats& stats) { stats_ += stats; }

TensorMetrics ErrorAccumulator::Finish() const {
  TensorMetrics m;
  m.elements = n_;
  m.max_abs_err = max_abs_;
  m.max_rel_err = max_rel_;
  m.reference_max_abs = ref_max_;
  m.non_finite_mismatch = mismatch_;
  m.target_non_finite = target_non_finite_;
  m.saturated = stats_.saturated;
  m.rounding_overflow = stats_.overflow;
  m.flushed = stats_.flushed;
  if (n_ > 0) {
    const double n = static_cast<double>(n_);
    m.rmse = std::sqrt(sq_err_ / n);
    m.ratio_rel_lt_1e3 = static_cast<double>(lt_1e3_) / n;
    m.ratio_rel_lt_5e3 = static_cast<double>(lt_5e3_) / n;
    m.target = {t_max_, t_min_, t_sum_ / n, std::sqrt(tt_)};
    m.reference = {r_max_, r_min_, r_sum_ / n, std::sqrt(rr_)};
  }
  // msprobe: both all zero -> 1; one side all zero -> N/A (fails).
  if (tt_ == 0 && rr_ == 0) {
    m.cosine = 1;
  } else if (tt_ == 0 || rr_ == 0) {
    m.cosine = std::numeric_limits<double>::quiet_NaN();
  } else {
    m.cosine = std::clamp(dot_ / (std::sqrt(tt_) * std::sqrt(rr_)), -1.0, 1.0);
  }
  return m;
}

bool Passes(const TensorMetrics& m, const Thresholds& t) {
  if (m.non_finite_mismatch > 0) return false;
  if (!std::isfinite(m.cosine) || !std::isfinite(m.max_abs_err)) return false;
  if (m.cosine < t.cosine && m.max_abs_err > t.max_abs) return false;
  if (m.cosine < t.cosine_floor) return false;
  if (m.max_abs_err > t.max_abs_ceiling) return false;
  return true;
}

}  // namespace npugap::analysis::precision
