// Emulated execution: the FP32 kernels under a numerics plan.
#include <cmath>

#include "npugap/analysis/precision/emulate.h"
#include "precision_test_util.h"

namespace npugap::analysis::precision {
namespace {

using numerics::Format;
using testing::Plan;

ir::Tensor Floats(ir::Shape shape, std::vector<float> v) {
  return ir::Tensor::FromVector<float>(std::move(shape), v);
}

std::vector<float> Values(const ir::Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

std::vector<ir::Tensor> Emulate(const ir::Model& m, const PrecisionPlan& p, const std::vector<ir::Tensor>& in,
                                bool fuse = true, const EmulationObserver& obs = nullptr) {
  auto r = EmulatedRunner::Create(m, p, {1, fuse});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  auto out = r->Run(in, obs);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? std::move(out).value() : std::vector<ir::Tensor>{};
}

// A MatMul in force_fp16 is the FP32 kernel on operands rounded to fp16, rounded once at the end.
TEST(EmulateTest, MatMulForceFp16EqualsFp32KernelOnRoundedOperandsRoundedOnce) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {3, 5}).Output("y", {3, 4});
  std::vector<float> w(20), x(15);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f + 0.0123457f * static_cast<float>(i * i % 17);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -1.3f + 0.271828f * static_cast<float>(i);
  b.FloatInitializer("W", {5, 4}, w).Node("MatMul", {"x", "W"}, {"y"}, "mm");
  const ir::Model m = npugap::testing::Import(b);
  const std::vector<ir::Tensor> got = Emulate(m, Plan(m, "ascend910b2", "force_fp16"), {Floats({3, 5}, x)});
  ASSERT_EQ(got.size(), 1u);

  // Reference: round both operands, multiply in double (products of fp16 values are exact in
  // fp32; the sums of 5 of them are too, up to the fp32 rounding the kernel does), round once.
  std::vector<float> xr = x, wr = w;
  numerics::RoundArray(Format::kFP16, xr);
  numerics::RoundArray(Format::kFP16, wr);
  auto fp32 = exec::Executor::Create(m, {1, false});
  ASSERT_TRUE(fp32.ok());
  ir::Model rounded_model = m;
  rounded_model.graph.initializers[m.graph.FindValue("W")] = Floats({5, 4}, wr);
  auto ref_exec = exec::Executor::Create(rounded_model, {1, false});
  ASSERT_TRUE(ref_exec.ok());
  auto ref = ref_exec->Run({Floats({3, 5}, xr)});
  ASSERT_TRUE(ref.ok());
  std::vector<float> expected = Values((*ref)[0]);
  numerics::RoundArray(Format::kFP16, expected);
  EXPECT_EQ(Values(got[0]), expected);
  // And it differs from plain fp32 (otherwise the test would prove nothing).
  auto plain = fp32->Run({Floats({3, 5}, x)});
  ASSERT_TRUE(plain.ok());
  EXPECT_NE(Values((*plain)[0]), expected);
}

ir::Model ScaleModel(float scale) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {3}).Output("y", {3});
  b.FloatInitializer("k", {1}, {scale}).Node("Mul", {"x", "k"}, {"y"}, "mul");
  return npugap::testing::Import(b);
}

TEST(EmulateTest, SaturationTurnsOverflowIntoMaxAndIeeeIntoInf) {
  const ir::Model m = ScaleModel(300.0f);
  const ir::Tensor x = Floats({3}, {300.0f, -300.0f, 1.0f});
  numerics::RoundStats seen;
  auto obs = [&](const ir::Node&, const std::vector<ir::Tensor>&,
                 const std::vector<numerics::RoundStats>& st) { seen += st[0]; };
  const auto sat = Emulate(m, Plan(m, "ascend910", "force_fp16"), {x}, true, obs);
  ASSERT_EQ(sat.size(), 1u);
  EXPECT_EQ(Values(sat[0]), (std::vector<float>{65504.0f, -65504.0f, 300.0f}));
  EXPECT_EQ(seen.overflow, 2);
  EXPECT_EQ(seen.saturated, 2);
  const auto ieee = Emulate(m, Plan(m, "ascend910b2", "force_fp16"), {x});
  ASSERT_EQ(ieee.size(), 1u);
  EXPECT_TRUE(std::isinf(Values(ieee[0])[0]));
  EXPECT_EQ(Values(ieee[0])[2], 300.0f);
}

TEST(EmulateTest, NanAndInfInputsAreCarriedNotFatal) {
  const ir::Model m = ScaleModel(2.0f);
  const ir::Tensor x = Floats({3}, {NAN, INFINITY, 1.0f});
  const auto ieee = Emulate(m, Plan(m, "ascend910b2", "force_fp16"), {x});
  ASSERT_EQ(ieee.size(), 1u);
  EXPECT_TRUE(std::isnan(Values(ieee[0])[0]));
  EXPECT_TRUE(std::isinf(Values(ieee[0])[1]));
  // Saturation: the graph input is rounded first (NaN -> 0, inf -> max), then the product saturates.
  const auto sat = Emulate(m, Plan(m, "ascend910", "force_fp16"), {x});
  ASSERT_EQ(sat.size(), 1u);
  EXPECT_EQ(Values(sat[0]), (std::vector<float>{0.0f, 65504.0f, 2.0f}));
}

TEST(EmulateTest, UniformBf16RoundsInputsAndOutputs) {
  const ir::Model m = ScaleModel(1.0f / 3.0f);
  const ir::Tensor x = Floats({3}, {1.00390625f + 0.001f, 3.0f, -7.1f});
  const auto got = Emulate(m, Plan(m, "ascend910b2", "uniform_bf16"), {x});
  ASSERT_EQ(got.size(), 1u);
  std::vector<float> xr = Values(x);
  numerics::RoundArray(Format::kBF16, xr);
  std::vector<float> k{1.0f / 3.0f};
  numerics::RoundArray(Format::kBF16, k);
  std::vector<float> expected;
  for (float v : xr) expected.push_back(v * k[0]);
  numerics::RoundArray(Format::kBF16, expected);
  EXPECT_EQ(Values(got[0]), expected);
}

// Conv -> BatchNormalization -> Relu: unfused, each node is observed and rounded; fused, one
// kernel rounds once at the end.
ir::Model ConvBnRelu() {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1, 4, 4}).Output("y", {1, 1, 2, 2});
  b.FloatInitializer("W", {1, 1, 3, 3}, {0.11f, 0.21f, 0.31f, 0.41f, -0.51f, 0.61f, 0.71f, 0.81f, 0.91f});
  b.FloatInitializer("scale", {1}, {1.37f}).FloatInitializer("bias", {1}, {-0.2f});
  b.FloatInitializer("mean", {1}, {0.3f}).FloatInitializer("var", {1}, {2.1f});
  b.Node("Conv", {"x", "W"}, {"c"}, "conv")
      .Node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}, "bn")
      .Node("Relu", {"bn"}, {"y"}, "relu");
  return npugap::testing::Import(b);
}

TEST(EmulateTest, FusedRoundsOnceUnfusedObservesEveryNode) {
  const ir::Model m = ConvBnRelu();
  const PrecisionPlan p = Plan(m, "ascend910b2", "force_fp16");
  std::vector<float> x(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.37f * static_cast<float>(i) - 2.0f;
  std::vector<std::string> unfused_nodes, fused_nodes;
  const auto unfused = Emulate(m, p, {Floats({1, 1, 4, 4}, x)}, false,
                               [&](const ir::Node& n, const std::vector<ir::Tensor>& outs, const auto&) {
                                 unfused_nodes.push_back(n.name);
                                 // Observed outputs are the rounded ones.
                                 std::vector<float> v = Values(outs[0]), r = v;
                                 numerics::RoundArray(Format::kFP16, r);
                                 EXPECT_EQ(v, r) << n.name;
                               });
  const auto fused =
      Emulate(m, p, {Floats({1, 1, 4, 4}, x)}, true,
              [&](const ir::Node& n, const auto&, const auto&) { fused_nodes.push_back(n.name); });
  EXPECT_EQ(unfused_nodes, (std::vector<std::string>{"conv", "bn", "relu"}));
  EXPECT_EQ(fused_nodes, (std::vector<std::string>{"conv"}));
  ASSERT_EQ(unfused.size(), 1u);
  ASSERT_EQ(fused.size(), 1u);
  const std::vector<float> a = Values(unfused[0]), f = Values(fused[0]);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], f[i], 4e-3f * std::max(1.0f, std::fabs(a[i])));
}

TEST(EmulateTest, PlanOfAnotherModelIsRejected) {
  const ir::Model m = ConvBnRelu();
  const ir::Model other = ScaleModel(1.0f);
  auto r = EmulatedRunner::Create(m, Plan(other, "ascend910b2", "force_fp16"));
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace npugap::analysis::precision

namespace npugap::analysis::precision {
namespace {

// ReduceMean over 3000 ones: with the partial sum kept in fp16 (ATC's default high_performance,
// data/precision/vector_kernels.json) it stops growing at 2048 (2048 + 1 rounds back to 2048);
// high_precision keeps it in fp32 and the mean is 1.
TEST(EmulateTest, Fp16AccumulationInReductionsFollowsThePlan) {
  for (const char* op : {"ReduceMean", "GlobalAveragePool"}) {
    npugap::testing::ModelBuilder b;
    const bool global = std::string(op) == "GlobalAveragePool";
    const ir::Shape shape = global ? ir::Shape{1, 1, 1, 3000} : ir::Shape{1, 3000};
    if (global) {
      b.Input("x", {1, 1, 1, 3000}).Output("y", {1, 1, 1, 1});
    } else {
      b.Input("x", {1, 3000}).Output("y", {1, 1});
    }
    b.Node(op, {"x"}, {"y"}, "mean");
    const ir::Model m = npugap::testing::Import(b);
    const ir::Tensor x = Floats(shape, std::vector<float>(3000, 1.0f));
    const auto low = Emulate(m, Plan(m, "ascend910b2", "force_fp16"), {x});
    ASSERT_EQ(low.size(), 1u) << op;
    EXPECT_EQ(Values(low[0])[0], numerics::RoundScalar(Format::kFP16, 2048.0f / 3000.0f)) << op;
    PrecisionOptions o;
    o.mode = "force_fp16";
    o.op_select_implmode = "high_precision";
    const auto high = Emulate(m, Plan(m, "ascend910b2", o), {x});
    ASSERT_EQ(high.size(), 1u) << op;
    EXPECT_EQ(Values(high[0])[0], 1.0f) << op;
  }
}

}  // namespace
}  // namespace npugap::analysis::precision
