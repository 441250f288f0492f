#include "npugap/exec/compare.h"

#include <cmath>

#include <fmt/format.h>

#include "npugap/numerics/half.h"

namespace npugap::exec {

using ir::DType;

double ElementAsDouble(const ir::Tensor& t, int64_t i) {
  const auto k = static_cast<size_t>(i);
  switch (t.dtype()) {
    case DType::kFloat32: return t.data<float>()[k];
    case DType::kFloat64: return t.data<double>()[k];
    case DType::kFloat16: return numerics::HalfToFloat(t.data<uint16_t>()[k]);
    case DType::kBFloat16: return numerics::BFloat16ToFloat(t.data<uint16_t>()[k]);
    case DType::kInt8: return t.data<int8_t>()[k];
    case DType::kInt16: return t.data<int16_t>()[k];
    case DType::kInt32: return t.data<int32_t>()[k];
    case DType::kInt64: return static_cast<double>(t.data<int64_t>()[k]);
    case DType::kUInt8: return t.data<uint8_t>()[k];
    case DType::kUInt16: return t.data<uint16_t>()[k];
    case DType::kUInt32: return t.data<uint32_t>()[k];
    case DType::kUInt64: return static_cast<double>(t.data<uint64_t>()[k]);
    case DType::kBool: return t.data<bool>()[k] ? 1.0 : 0.0;
    default: return std::nan("");
  }
}

namespace {

template <typename T>
bool ExactEqual(const ir::Tensor& a, const ir::Tensor& b, int64_t i) {
  return a.data<T>()[i] == b.data<T>()[i];
}

}  // namespace

CompareResult CompareTensors(const ir::Tensor& actual, const ir::Tensor& expected, Tolerance tol) {
  CompareResult r;
  if (actual.dtype() != expected.dtype()) {
    r.reason = fmt::format("dtype {} but expected {}", ir::DTypeName(actual.dtype()), ir::DTypeName(expected.dtype()));
    return r;
  }
  if (actual.shape() != expected.shape()) {
    r.reason = fmt::format("shape {} but expected {}", ir::ShapeToString(actual.shape()),
                           ir::ShapeToString(expected.shape()));
    return r;
  }
  const int64_t n = actual.numel();
  int64_t first_bad = -1;
  if (actual.dtype() == DType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      if (actual.strings()[static_cast<size_t>(i)] != expected.strings()[static_cast<size_t>(i)]) {
        ++r.mismatches;
        if (first_bad < 0) first_bad = i;
      }
    }
    if (first_bad >= 0) {
      r.reason = fmt::format("{} of {} strings differ; first at {}: '{}' vs '{}'", r.mismatches, n, first_bad,
                             actual.strings()[static_cast<size_t>(first_bad)],
                             expected.strings()[static_cast<size_t>(first_bad)]);
    }
    r.match = first_bad < 0;
    return r;
  }
  const bool is_float = ir::IsFloatingPoint(actual.dtype());
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    if (is_float) {
      const double a = ElementAsDouble(actual, i);
      const double e = ElementAsDouble(expected, i);
      if (std::isnan(a) || std::isnan(e)) {
        ok = std::isnan(a) && std::isnan(e);
      } else if (std::isinf(a) || std::isinf(e)) {
        ok = a == e;
      } else {
        const double err = std::fabs(a - e);
        r.max_abs_error = std::max(r.max_abs_error, err);
        ok = err <= tol.atol + tol.rtol * std::fabs(e);
      }
    } else {
      switch (ir::DTypeSize(actual.dtype())) {
        case 1: ok = ExactEqual<uint8_t>(actual, expected, i); break;
        case 2: ok = ExactEqual<uint16_t>(actual, expected, i); break;
        case 4: ok = ExactEqual<uint32_t>(actual, expected, i); break;
        default: ok = ExactEqual<uint64_t>(actual, expected, i); break;
      }
      if (!ok) r.max_abs_error = std::max(r.max_abs_error, std::fabs(ElementAsDouble(actual, i) - ElementAsDouble(expected, i)));
    }
    if (!ok) {
      ++r.mismatches;
      if (first_bad < 0) first_bad = i;
    }
  }
  r.match = first_bad < 0;
  if (!r.match) {
    r.reason = fmt::format("{} of {} elements differ (max abs error {:.3g}); first at flat index {}: {} vs expected {}",
                           r.mismatches, n, r.max_abs_error, first_bad, ElementAsDouble(actual, first_bad),
                           ElementAsDouble(expected, first_bad));
  }
  return r;
}

}  // namespace npugap::exec
