// op_select_implmode in the emulated run: high_performance (ATC's default) evaluates Sigmoid,
// Tanh, Softplus and Div as chains of fp16 instructions (emulate_formulas.cc); high_precision
// computes them in fp32 and rounds once. Expected values computed by hand with NumPy float16.
#include <cmath>

#include "npugap/analysis/precision/emulate.h"
#include "precision_test_util.h"

namespace npugap::analysis::precision {
namespace {

using testing::Of;
using testing::Plan;

ir::Model OneOp(const std::string& op) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1}).Output("y", {1});
  if (op == "Div") {
    b.FloatInitializer("d", {1}, {11.f});
    b.Node("Div", {"x", "d"}, {"y"}, "op");
  } else {
    b.Node(op, {"x"}, {"y"}, "op");
  }
  return npugap::testing::Import(b);
}

float RunOne(const std::string& op, float x, const std::string& implmode,
             const std::string& mode = "force_fp16") {
  const ir::Model m = OneOp(op);
  PrecisionOptions o;
  o.mode = mode;
  o.op_select_implmode = implmode;
  auto r = EmulatedRunner::Create(m, Plan(m, "ascend910b2", o), {1, true});
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return NAN;
  auto out = r->Run({ir::Tensor::FromVector<float>({1}, {x})});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? out->at(0).data<float>()[0] : NAN;
}

TEST(ImplModeTest, HighPerformanceIsTheDefaultAndOnlyForFp16VectorOps) {
  const ir::Model m = OneOp("Sigmoid");
  PrecisionOptions o;
  o.mode = "force_fp16";
  EXPECT_TRUE(Of(m, Plan(m, "ascend910b2", o), "op").high_performance_formula);
  o.op_select_implmode = "high_performance";
  EXPECT_TRUE(Of(m, Plan(m, "ascend910b2", o), "op").high_performance_formula);
  o.op_select_implmode = "high_precision";
  EXPECT_FALSE(Of(m, Plan(m, "ascend910b2", o), "op").high_performance_formula);
  o.op_select_implmode = "";
  o.mode = "must_keep_origin_dtype";  // fp32: the fp16 implementations do not apply
  EXPECT_FALSE(Of(m, Plan(m, "ascend910b2", o), "op").high_performance_formula);
  o.mode = "uniform_bf16";
  EXPECT_FALSE(Of(m, Plan(m, "ascend910b2", o), "op").high_performance_formula);
  const ir::Model relu = OneOp("Relu");  // one instruction: no formula
  EXPECT_FALSE(Of(relu, Plan(relu, "ascend910b2", "force_fp16"), "op").high_performance_formula);
}

// 11 / 11: 1/11 rounds to 0.0908813 in fp16, and 11 times that to 0.99951171875.
TEST(ImplModeTest, DivIsReciprocalThenMultiply) {
  EXPECT_EQ(RunOne("Div", 11.f, "high_precision"), 1.f);
  EXPECT_EQ(RunOne("Div", 11.f, ""), 0.99951171875f);
  EXPECT_EQ(RunOne("Div", 11.f, "high_performance"), 0.99951171875f);
}

TEST(ImplModeTest, SigmoidRoundsEachStep) {
  EXPECT_EQ(RunOne("Sigmoid", 1.5f, "high_precision"), 0.8173828125f);
  EXPECT_EQ(RunOne("Sigmoid", 1.5f, "high_performance"), 0.81787109375f);
}

// tanh(0.1) = 1 - 2 / (e^0.2 + 1): the cancellation in fp16 costs the low bits.
TEST(ImplModeTest, TanhCancellationAndSaturation) {
  EXPECT_EQ(RunOne("Tanh", 0.1f, "high_precision"), 0.09967041015625f);
  EXPECT_EQ(RunOne("Tanh", 0.1f, "high_performance"), 0.10009765625f);
  // exp(2x) overflows fp16 to inf for x = 20 (910B: IEEE mode): 1 - 2 / inf = 1, never NaN.
  EXPECT_EQ(RunOne("Tanh", 20.f, "high_performance"), 1.f);
  EXPECT_EQ(RunOne("Tanh", -20.f, "high_performance"), -1.f);
}

TEST(ImplModeTest, Fp32ModesAreUnchanged) {
  EXPECT_FLOAT_EQ(RunOne("Sigmoid", 1.5f, "high_performance", "must_keep_origin_dtype"),
                  1.f / (1.f + std::exp(-1.5f)));
}

}  // namespace
}  // namespace npugap::analysis::precision
