// The seed's case (issue 4 item 5): SimpleNet — Conv2d(3->64, k3) -> BN -> ReLU -> Flatten ->
// Linear(64*222*222 -> 10) on 3x224x224 — trained with Adam at batch 32 (the training
// environment) and 64 (deployment) on the 910B2 and the 310P3. Every expected number is worked
// out here from the layer shapes and torch_npu's +32 B / 512 B rule, not taken from the library.
#include <gtest/gtest.h>

#include "npugap/analysis/memory/inference.h"
#include "npugap/analysis/memory/max_batch.h"
#include "npugap/analysis/memory/training.h"
#include "npugap/onnx/export.h"

namespace npugap::analysis::memory {
namespace {

int64_t Npu(int64_t bytes) { return (bytes + 32 + 511) / 512 * 512; }

constexpr int64_t kF = 4;                      // float32
constexpr int64_t kFeatures = 64 * 222 * 222;  // 3,154,176
constexpr int64_t kFcWeight = 10 * kFeatures * kF;
// conv.weight, conv.bias, bn.weight, bn.bias | bn.running_mean, bn.running_var | fc.weight, fc.bias
constexpr int64_t kSmall = 64 * kF;
const int64_t kTrainable = Npu(64 * 3 * 3 * 3 * kF) + 3 * Npu(kSmall) + Npu(kFcWeight) + Npu(10 * kF);
const int64_t kAllWeights = kTrainable + 2 * Npu(kSmall);

int64_t Input(int64_t b) { return b * 3 * 224 * 224 * kF; }
int64_t Act(int64_t b) { return b * kFeatures * kF; }  // one [b, 64, 222, 222] float32 tensor

// Training total by hand: weights + gradients + 2 Adam states + saved activations (Conv's
// input, BN's input = conv output, ReLU's output, BN's mean / inv-std) + the backward transient
// (BN's or ReLU's output gradient and input gradient at once).
int64_t TrainTotal(int64_t b) {
  const int64_t saved = Npu(Input(b)) + 2 * Npu(Act(b)) + 2 * Npu(kSmall);
  return kAllWeights + kTrainable + 2 * kTrainable + saved + 2 * Npu(Act(b));
}

struct Case {
  const char* target;
  int64_t batch;
};

class SimpleNetTest : public ::testing::TestWithParam<Case> {};

TEST_P(SimpleNetTest, TrainingBreakdownMatchesTheHandCount) {
  const Case c = GetParam();
  auto target = target::LoadTarget(c.target);
  ASSERT_TRUE(target.ok());
  const ir::Model m = onnx_import::BuildSimpleNet(c.batch, 1);
  auto shapes = StaticShapes(m.graph);
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  auto r = PlanTraining(m.graph, *shapes, *target, {Optimizer::kAdam, Amp::kNone, 1});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->parameters, 64 * 27 + 64 * 3 + 10 * kFeatures + 10);
  EXPECT_EQ(r->weights_bytes, kAllWeights);
  EXPECT_EQ(r->gradients_bytes, kTrainable);
  EXPECT_EQ(r->optimizer_bytes, 2 * kTrainable);
  EXPECT_EQ(r->master_weights_bytes, 0);
  EXPECT_EQ(r->activations_bytes, Npu(Input(c.batch)) + 2 * Npu(Act(c.batch)) + 2 * Npu(kSmall));
  EXPECT_EQ(r->transient_bytes, 2 * Npu(Act(c.batch)));
  EXPECT_EQ(r->hccl_bytes, 0);
  EXPECT_EQ(r->total_bytes, TrainTotal(c.batch));
  // The Linear weight dominates the weights; the 64x222x222 activation dominates activations.
  EXPECT_GT(Npu(kFcWeight), 0.99 * static_cast<double>(r->weights_bytes));
  EXPECT_EQ(r->largest_saved_bytes, Npu(Act(c.batch)));
  EXPECT_GT(2 * Npu(Act(c.batch)), 0.95 * static_cast<double>(r->activations_bytes));

  // The largest batch that trains: the hand formula searched one batch at a time.
  const int64_t available = target->memory.device.value - target->memory.reserve.value;
  int64_t expected = 0;
  while (TrainTotal(expected + 1) <= available) ++expected;
  const ir::Model other = onnx_import::BuildSimpleNet(c.batch * 2, 1);
  auto scaling = BatchScaling::Derive(*shapes, c.batch, *StaticShapes(other.graph), c.batch * 2);
  ASSERT_TRUE(scaling.ok()) << scaling.status().message();
  FitPlan plan;
  plan.training = TrainingOptions{Optimizer::kAdam, Amp::kNone, 1};
  const Budget budget{target->memory.device.value, target->memory.reserve.value};
  auto found =
      LargestFittingBatch(FitsAtBatch(
                              m.graph, [&](int64_t b) { return scaling->At(b); }, *target, plan, budget),
                          1 << 20);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, expected);
  EXPECT_TRUE(TrainTotal(c.batch) <= available);  // both batches train on both targets
}

TEST_P(SimpleNetTest, InferencePlanMatchesTheHandCount) {
  const Case c = GetParam();
  auto target = target::LoadTarget(c.target);
  ASSERT_TRUE(target.ok());
  const ir::Model m = onnx_import::BuildSimpleNet(c.batch, 1);
  auto r = PlanInference(m.graph, *StaticShapes(m.graph), *target);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Offline layouts: conv weight FRACTAL_Z (C_in 3 -> 16), fc weight FRACTAL_NZ (10 rows -> 16).
  EXPECT_EQ(r->weights_bytes,
            Npu(64 * 16 * 9 * kF) + Npu(16 * kFeatures * kF) + 5 * Npu(kSmall) + Npu(10 * kF));
  EXPECT_EQ(r->weights_nd_bytes, 64 * 27 * kF + 5 * kSmall + kFcWeight + 10 * kF);
  // Conv -> BN -> ReLU -> Flatten chain: two [b, 64, 222, 222] tensors live at every step; the
  // Flatten of an NC1HWC0 tensor is an ND copy.
  EXPECT_EQ(r->lower_bound_bytes, 2 * Npu(Act(c.batch)));
  EXPECT_EQ(r->activation_peak_bytes, 2 * Npu(Act(c.batch)));
  // Largest TransData: the flattened activation to FRACTAL_NZ for the Linear (b is a multiple of 16).
  EXPECT_EQ(r->workspace_bytes, Npu(Act(c.batch)));
  EXPECT_EQ(r->total_bytes, r->weights_bytes + 3 * Npu(Act(c.batch)));
}

INSTANTIATE_TEST_SUITE_P(SeedCase, SimpleNetTest,
                         ::testing::Values(Case{"ascend910b2", 32}, Case{"ascend910b2", 64},
                                           Case{"ascend310p3", 32}, Case{"ascend310p3", 64}),
                         [](const auto& info) {
                           return std::string(info.param.target) + "_b" + std::to_string(info.param.batch);
                         });

}  // namespace
}  // namespace npugap::analysis::memory
