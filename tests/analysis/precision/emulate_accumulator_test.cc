// The finite-accumulator cube model in the emulated run: Conv, ConvTranspose, MatMul and Gemm
// run their float32 path through numerics::CubeAccumulator when the plan turns it on.
#include <cmath>

#include "npugap/analysis/precision/emulate.h"
#include "npugap/exec/executor.h"
#include "precision_test_util.h"

namespace npugap::analysis::precision {
namespace {

using testing::EmulatedFirstValue;
using testing::Plan;

const float kTiny = std::ldexp(1.f, -15);  // products of two: 2^-30, below 2^-23 of 1

ir::Tensor Floats(ir::Shape shape, std::vector<float> v) {
  return ir::Tensor::FromVector<float>(std::move(shape), v);
}

// y = 1*1 + (-1)*1 + 2^-15 * 2^-15 through one cube op; the three products share one fractal.
ir::Model OneFractal(const std::string& op) {
  npugap::testing::ModelBuilder b;
  if (op == "Conv" || op == "ConvTranspose") {
    b.Input("x", {1, 3, 1, 1}).Output("y", {1, 1, 1, 1});
    b.FloatInitializer("W",
                       op == "Conv" ? std::vector<int64_t>{1, 3, 1, 1} : std::vector<int64_t>{3, 1, 1, 1},
                       {1.f, 1.f, kTiny});
  } else {
    b.Input("x", {1, 3}).Output("y", {1, 1});
    b.FloatInitializer("W", {3, 1}, {1.f, 1.f, kTiny});
  }
  b.Node(op, {"x", "W"}, {"y"}, "cube");
  return npugap::testing::Import(b);
}

ir::Tensor OneFractalInput(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" ? Floats({1, 3, 1, 1}, {1.f, -1.f, kTiny})
                                               : Floats({1, 3}, {1.f, -1.f, kTiny});
}

// must_keep_origin_dtype on the 910B2: fp32 cube inputs, so only the accumulator changes numbers
// (conv reads HF32, in which 1 and 2^-15 are exact).
PrecisionOptions WithAccumulator(int bits) {
  PrecisionOptions o;
  o.mode = "must_keep_origin_dtype";
  o.finite_accumulator = true;
  o.accumulator_fraction_bits = bits;
  return o;
}

class CubeAccumulatorOpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CubeAccumulatorOpTest, AlignmentDropsTheSmallProductAndLargeNKeepsIt) {
  const ir::Model m = OneFractal(GetParam());
  const ir::Tensor x = OneFractalInput(GetParam());
  EXPECT_EQ(EmulatedFirstValue(m, Plan(m, "ascend910b2", WithAccumulator(23)), x), 0.f);
  EXPECT_EQ(EmulatedFirstValue(m, Plan(m, "ascend910b2", WithAccumulator(30)), x), kTiny * kTiny);
  EXPECT_EQ(EmulatedFirstValue(m, Plan(m, "ascend910b2", WithAccumulator(23)), x, /*fuse=*/false), 0.f);
}

TEST_P(CubeAccumulatorOpTest, OffByDefaultTheFp32KernelRuns) {
  const ir::Model m = OneFractal(GetParam());
  const ir::Tensor x = OneFractalInput(GetParam());
  PrecisionOptions o;
  o.mode = "must_keep_origin_dtype";
  const PrecisionPlan p = Plan(m, "ascend910b2", o);
  EXPECT_FALSE(p.finite_accumulator);
  auto plain = exec::Executor::Create(m, {1, false});
  ASSERT_TRUE(plain.ok());
  auto want = plain->Run({x});
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(EmulatedFirstValue(m, p, x), want->at(0).data<float>()[0]);
}

INSTANTIATE_TEST_SUITE_P(CubeOps, CubeAccumulatorOpTest,
                         ::testing::Values("MatMul", "Gemm", "Conv", "ConvTranspose"));

// A 3x3 single-channel conv has one channel per kernel tap, so every product is its own fractal
// (the cube's K order: channel blocks of 16, then taps): nothing is dropped at N = 23.
TEST(CubeAccumulatorConvTest, EachKernelTapIsItsOwnFractal) {
  npugap::testing::ModelBuilder b;
  b.Input("x", {1, 1, 3, 3}).Output("y", {1, 1, 1, 1});
  b.FloatInitializer("W", {1, 1, 3, 3}, {1.f, 1.f, kTiny, 0, 0, 0, 0, 0, 0});
  b.Node("Conv", {"x", "W"}, {"y"}, "conv");
  const ir::Model m = npugap::testing::Import(b);
  const ir::Tensor x = Floats({1, 1, 3, 3}, {1.f, -1.f, kTiny, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(EmulatedFirstValue(m, Plan(m, "ascend910b2", WithAccumulator(23)), x), kTiny * kTiny);
}

TEST(CubeAccumulatorConvTest, FractionBitsOutOfRangeAreAnError) {
  const ir::Model m = OneFractal("MatMul");
  for (int bits : {0, 49}) {
    auto p = BuildPrecisionPlan(m, testing::Target("ascend910b2"), WithAccumulator(bits));
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.status().message().find("expected 1 to 48"), std::string::npos) << p.status().message();
  }
}

}  // namespace
}  // namespace npugap::analysis::precision
