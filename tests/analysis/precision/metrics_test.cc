#include "npugap/analysis/precision/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace npugap::analysis::precision {
namespace {

ir::Tensor F(std::vector<float> v) {
  return ir::Tensor::FromVector<float>({static_cast<int64_t>(v.size())}, v);
}

TEST(PrecisionMetricsTest, FormulasOfMsprobe) {
  ErrorAccumulator a;
  ASSERT_TRUE(a.Add(F({1.0f, 2.0f, -4.0f, 0.5f}), F({1.0f, 2.002f, -4.0f, 0.4f})).ok());
  const TensorMetrics m = a.Finish();
  const double t[] = {1, 2, -4, 0.5}, r[] = {1, static_cast<float>(2.002), -4, static_cast<float>(0.4)};
  double dot = 0, tt = 0, rr = 0, sq = 0, max_abs = 0, max_rel = 0;
  int lt3 = 0, lt5 = 0;
  for (int i = 0; i < 4; ++i) {
    dot += t[i] * r[i], tt += t[i] * t[i], rr += r[i] * r[i];
    const double d = std::abs(t[i] - r[i]);
    sq += d * d;
    max_abs = std::max(max_abs, d);
    max_rel = std::max(max_rel, d / std::abs(r[i]));
    lt3 += d / std::abs(r[i]) < 0.001;
    lt5 += d / std::abs(r[i]) < 0.005;
  }
  EXPECT_EQ(m.elements, 4);
  EXPECT_NEAR(m.cosine, dot / std::sqrt(tt * rr), 1e-12);
  EXPECT_NEAR(m.max_abs_err, max_abs, 1e-12);
  EXPECT_NEAR(m.max_rel_err, max_rel, 1e-12);
  EXPECT_NEAR(m.rmse, std::sqrt(sq / 4), 1e-12);
  EXPECT_DOUBLE_EQ(m.ratio_rel_lt_1e3, lt3 / 4.0);  // 2.0 vs 2.002 is 0.0999% off: counted
  EXPECT_DOUBLE_EQ(m.ratio_rel_lt_5e3, lt5 / 4.0);
  EXPECT_EQ(lt3, 3);
}

TEST(PrecisionMetricsTest, SamplesAccumulateAsIfConcatenated) {
  ErrorAccumulator split, whole;
  ASSERT_TRUE(split.Add(F({1, 2}), F({1.1f, 2})).ok());
  ASSERT_TRUE(split.Add(F({3, -1}), F({3, -1.5f})).ok());
  ASSERT_TRUE(whole.Add(F({1, 2, 3, -1}), F({1.1f, 2, 3, -1.5f})).ok());
  const TensorMetrics a = split.Finish(), b = whole.Finish();
  EXPECT_DOUBLE_EQ(a.cosine, b.cosine);
  EXPECT_DOUBLE_EQ(a.rmse, b.rmse);
  EXPECT_DOUBLE_EQ(a.max_rel_err, b.max_rel_err);
  EXPECT_EQ(a.elements, 4);
}

TEST(PrecisionMetricsTest, ZeroReferenceAndAllZeroSides) {
  ErrorAccumulator zero_ref;
  ASSERT_TRUE(zero_ref.Add(F({1e-3f, 0}), F({0, 0})).ok());
  const TensorMetrics z = zero_ref.Finish();
  EXPECT_TRUE(std::isnan(z.cosine));  // the reference is all zero, the target is not: N/A
  EXPECT_NEAR(z.max_rel_err, 1e-3 / std::numeric_limits<float>::epsilon(), 1.0);
  EXPECT_FALSE(Passes(z, {}));
  ErrorAccumulator both;
  ASSERT_TRUE(both.Add(F({0, 0}), F({0, 0})).ok());
  EXPECT_EQ(both.Finish().cosine, 1);
  EXPECT_TRUE(Passes(both.Finish(), {}));
}

TEST(PrecisionMetricsTest, NonFiniteTargetIsCountedAndFails) {
  ErrorAccumulator a;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  ASSERT_TRUE(a.Add(F({inf, 1, nan, nan}), F({60000, 1, 2, nan})).ok());
  numerics::RoundStats st;
  st.saturated = 3;
  st.flushed = 2;
  a.AddRoundStats(st);
  const TensorMetrics m = a.Finish();
  EXPECT_EQ(m.elements, 1);             // only the finite pair
  EXPECT_EQ(m.non_finite_mismatch, 2);  // NaN vs NaN agrees
  EXPECT_EQ(m.target_non_finite, 3);
  EXPECT_EQ(m.overflow_count(), 6);
  EXPECT_EQ(m.flushed, 2);
  EXPECT_FALSE(Passes(m, {}));
}

TEST(PrecisionMetricsTest, VerdictRule) {
  TensorMetrics m;
  m.cosine = 0.98, m.max_abs_err = 0.0005;  // cosine low but error tiny: reached
  EXPECT_TRUE(Passes(m, {}));
  m.max_abs_err = 0.002;  // both over: not reached
  EXPECT_FALSE(Passes(m, {}));
  m.cosine = 0.995, m.max_abs_err = 0.5;
  EXPECT_TRUE(Passes(m, {}));
  m.max_abs_err = 1.5;  // over the ceiling
  EXPECT_FALSE(Passes(m, {}));
  m.cosine = 0.85, m.max_abs_err = 0.0001;  // under the floor
  EXPECT_FALSE(Passes(m, {}));
  Thresholds loose;
  loose.cosine_floor = 0.8;
  EXPECT_TRUE(Passes(m, loose));
}

TEST(PrecisionMetricsTest, ShapeMismatchIsAnError) {
  ErrorAccumulator a;
  const Status s = a.Add(F({1, 2}), F({1, 2, 3}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("shape 2"), std::string::npos);
}

TEST(PrecisionMetricsTest, ParseThresholds) {
  auto t = ParseThresholds("cos=0.999,max_abs=1e-4");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_DOUBLE_EQ(t->cosine, 0.999);
  EXPECT_DOUBLE_EQ(t->max_abs, 1e-4);
  EXPECT_DOUBLE_EQ(t->cosine_floor, 0.9);
  EXPECT_DOUBLE_EQ(t->max_abs_ceiling, 1.0);
  auto all = ParseThresholds("max_abs_ceiling=2,cos_floor=0.5");
  ASSERT_TRUE(all.ok());
  EXPECT_DOUBLE_EQ(all->max_abs_ceiling, 2);
  auto bad_key = ParseThresholds("cosine=0.9,rtol=1");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("unknown key 'rtol'"), std::string::npos);
  auto bad_value = ParseThresholds("cos=abc");
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.status().message().find("'abc' is not a number"), std::string::npos);
  EXPECT_FALSE(ParseThresholds("cos").ok());
  EXPECT_FALSE(ParseThresholds("cos=2").ok());
  EXPECT_FALSE(ParseThresholds("max_abs=-1").ok());
}

}  // namespace
}  // namespace npugap::analysis::precision

namespace npugap::analysis::precision {
namespace {

// The accumulator's branch-free pass against the textbook loop (msprobe's formulas, one branch per
// case) on data with exact zeros, signed zeros, errors in both relative-error buckets and a NaN
// (its chunk takes the scalar loop, the others the AVX2 pass):
// the same bits for every metric.
TEST(PrecisionMetricsTest, BranchFreePassEqualsThePlainLoop) {
  std::vector<float> t, r;
  uint32_t state = 12345;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 8; };
  for (int i = 0; i < 5003; ++i) {  // chunks of 2048: a NaN one (scalar), SIMD ones, a tail
    const float ref = (next() % 3 == 0) ? (next() % 2 ? 0.0f : -0.0f) : static_cast<float>(next()) / 4e6f - 2;
    const float rel = static_cast<float>(next() % 1000) * 1e-5f;  // 0 .. 0.01: both buckets
    t.push_back(ref == 0 ? static_cast<float>(next() % 5) * 1e-8f : ref * (1 + rel));
    r.push_back(ref);
  }
  t[17] = std::numeric_limits<float>::quiet_NaN();
  ErrorAccumulator a;
  ASSERT_TRUE(a.Add(F(t), F(r)).ok());
  const TensorMetrics m = a.Finish();

  const double eps = std::numeric_limits<float>::epsilon();
  int64_t n = 0, lt3 = 0, lt5 = 0;
  double dot = 0, tt = 0, rr = 0, sq = 0, max_abs = 0, max_rel = 0, rmax = -INFINITY, rmin = INFINITY;
  for (size_t i = 0; i < t.size(); ++i) {
    const double x = t[i], y = r[i];
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    ++n;
    dot += x * y, tt += x * x, rr += y * y, sq += (x - y) * (x - y);
    max_abs = std::max(max_abs, std::abs(x - y));
    rmax = std::max(rmax, y), rmin = std::min(rmin, y);
    double rel = 0;
    if (y == 0) {
      rel = std::abs((x + eps) - eps) / eps;
    } else {
      rel = std::abs(x - y) / std::abs(y);
    }
    max_rel = std::max(max_rel, rel);
    if (rel < 0.001) ++lt3;
    if (rel < 0.005) ++lt5;
  }
  ASSERT_GT(lt5 - lt3, 100);  // both buckets are exercised
  ASSERT_LT(lt5, n);
  EXPECT_EQ(m.elements, n);
  EXPECT_EQ(m.non_finite_mismatch, 1);
  EXPECT_EQ(m.max_rel_err, max_rel);
  EXPECT_EQ(m.max_abs_err, max_abs);
  EXPECT_EQ(m.ratio_rel_lt_1e3, static_cast<double>(lt3) / static_cast<double>(n));
  EXPECT_EQ(m.ratio_rel_lt_5e3, static_cast<double>(lt5) / static_cast<double>(n));
  EXPECT_EQ(m.rmse, std::sqrt(sq / static_cast<double>(n)));
  EXPECT_EQ(m.cosine, std::clamp(dot / (std::sqrt(tt) * std::sqrt(rr)), -1.0, 1.0));
  EXPECT_EQ(m.reference.max, rmax);
  EXPECT_EQ(m.reference.min, rmin);
}

}  // namespace
}  // namespace npugap::analysis::precision
