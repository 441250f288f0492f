// msprobe's whole-network comparison metrics over pairs of tensors (target vs reference), summed
// over every sample of a run, and its pass rule ("Accuracy Reached or Not"). Formulas and
// thresholds: ../shared/research/precision-anchors.md §1.2 (MSTT
// debug/accuracy_tools/msprobe/docs/zh/accuracy_compare/pytorch_accuracy_compare_instruct.md §3.2,
// §3.5; published source).
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "npugap/base/status.h"
#include "npugap/ir/tensor.h"
#include "npugap/numerics/format.h"

namespace npugap::analysis::precision {

// A tensor fails when cosine < cosine && max_abs > max_abs, or cosine < cosine_floor, or
// max_abs > max_abs_ceiling, or a metric is not finite. Defaults are msprobe's.
struct Thresholds {
  double cosine = 0.99;
  double max_abs = 0.001;
  double cosine_floor = 0.9;
  double max_abs_ceiling = 1.0;
};

// "cos=0.99,max_abs=0.001,cos_floor=0.9,max_abs_ceiling=1"; any subset, any order. Errors name the
// key or value.
Expected<Thresholds> ParseThresholds(std::string_view text);

struct TensorMetrics {
  int64_t elements = 0;  // compared elements, over all samples
  double cosine = 1;     // NaN when exactly one side is all zero (msprobe's "N/A")
  double max_abs_err = 0;
  double max_rel_err = 0;  // |(t - r) / r|; where r == 0 both sides are shifted by eps (msprobe)
  double rmse = 0;
  double ratio_rel_lt_1e3 = 1;   // share of elements with relative error < 0.001
  double ratio_rel_lt_5e3 = 1;   // < 0.005
  double reference_max_abs = 0;  // max |r|, for scale
  // Statistics of each side over the finite pairs (msprobe's NPU / Bench max, min, mean, l2norm).
  struct Side {
    double max = 0, min = 0, mean = 0, l2norm = 0;
  };
  Side target, reference;
  // Elements that are INF/NaN in the target but finite in the reference, or finite in the target
  // and not in the reference. Such pairs are left out of the metrics above and fail the tensor.
  int64_t non_finite_mismatch = 0;
  int64_t target_non_finite = 0;  // INF/NaN outputs of the target
  int64_t saturated = 0;          // clamped to ±max by the target's saturation mode (RoundStats)
  int64_t rounding_overflow = 0;  // finite values beyond the format's range when rounded
  int64_t flushed = 0;            // non-zero values that became zero when rounded
  int64_t overflow_count() const { return target_non_finite + saturated; }
};

// Accumulates one tensor's error over samples; Finish() gives the metrics of all of them together
// (as if the samples were concatenated), not a mean of per-sample metrics.
class ErrorAccumulator {
 public:
  // Shapes must match; float32 / float64 / float16 / bfloat16 on either side.
  Status Add(const ir::Tensor& target, const ir::Tensor& reference);
  void AddRoundStats(const numerics::RoundStats& stats);
  TensorMetrics Finish() const;

 private:
  template <typename TargetAt, typename ReferenceAt>
  void Accumulate(TargetAt target, ReferenceAt reference, int64_t count, double eps);
  template <typename TargetAt, typename ReferenceAt>
  void AccumulateSums(TargetAt target, ReferenceAt reference, int64_t count);
  template <typename R>
  void AccumulateFloatTarget(const float* target, const R* reference, int64_t count, double eps);

  int64_t n_ = 0, lt_1e3_ = 0, lt_5e3_ = 0;
  double dot_ = 0, tt_ = 0, rr_ = 0, sq_err_ = 0, max_abs_ = 0, max_rel_ = 0, ref_max_ = 0;
  double t_sum_ = 0, r_sum_ = 0, t_max_ = -INFINITY, t_min_ = INFINITY, r_max_ = -INFINITY, r_min_ = INFINITY;
  int64_t mismatch_ = 0, target_non_finite_ = 0;
  numerics::RoundStats stats_;
};

bool Passes(const TensorMetrics& m, const Thresholds& t);

}  // namespace npugap::analysis::precision
