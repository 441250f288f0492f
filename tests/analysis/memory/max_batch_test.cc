// The largest-batch search: LargestFittingBatch over any monotone predicate, and FitsAtBatch, the
// one predicate the CLI and the report build (inference or training plan at a batch, in a budget).
#include "npugap/analysis/memory/max_batch.h"

#include <gtest/gtest.h>

#include "npugap/onnx/export.h"

namespace npugap::analysis::memory {
namespace {

TEST(MaxBatchTest, DoublingThenBisection) {
  int calls = 0;
  auto fits = [&](int64_t b) -> Expected<bool> {
    ++calls;
    return b * b <= 1000;
  };
  EXPECT_EQ(*LargestFittingBatch(fits, 1 << 20), 31);
  EXPECT_LE(calls, 12);
  EXPECT_EQ(*LargestFittingBatch([](int64_t) -> Expected<bool> { return false; }, 100), 0);
  EXPECT_EQ(*LargestFittingBatch([](int64_t) -> Expected<bool> { return true; }, 100), 100);
  auto failing = LargestFittingBatch([](int64_t) -> Expected<bool> { return Status::Internal("boom"); }, 8);
  EXPECT_FALSE(failing.ok());
}

// SimpleNet at batch 4 and 8 gives the shapes at any batch (built once: its Linear weight is 126 MB).
struct Fixture {
  target::Target target = *target::LoadTarget("ascend910b2");
  ir::Model model = onnx_import::BuildSimpleNet(4, 1);
  BatchScaling scaling = *BatchScaling::Derive(*StaticShapes(model.graph), 4,
                                               *StaticShapes(onnx_import::BuildSimpleNet(8, 1).graph), 8);
  ShapesAtBatch shapes_at = [this](int64_t b) { return scaling.At(b); };

  int64_t InferenceTotal(int64_t b, const InferenceOptions& o = {}) const {
    return PlanInference(model.graph, *scaling.At(b), target, o)->total_bytes;
  }
  int64_t TrainingTotal(int64_t b, const TrainingOptions& o) const {
    return PlanTraining(model.graph, *scaling.At(b), target, o)->total_bytes;
  }
};

const Fixture& Shared() {
  static const Fixture f;
  return f;
}

// A budget of exactly the plan's total at batch 5 fits batch 5 and not batch 6.
Budget BudgetOf(int64_t total) { return {total + 1000, 1000}; }

TEST(FitsAtBatchTest, InferencePlanFitsUpToItsOwnTotal) {
  const Fixture& f = Shared();
  const int64_t at5 = f.InferenceTotal(5);
  ASSERT_LT(at5, f.InferenceTotal(6));
  const auto fits = FitsAtBatch(f.model.graph, f.shapes_at, f.target, {}, BudgetOf(at5));
  EXPECT_TRUE(*fits(5));
  EXPECT_FALSE(*fits(6));
  EXPECT_EQ(*LargestFittingBatch(fits, 1 << 10), 5);
}

TEST(FitsAtBatchTest, InferenceOptionsReachThePlanner) {
  const Fixture& f = Shared();
  InferenceOptions naive;
  naive.planner = "naive";
  naive.npu_layouts = false;
  const int64_t at5 = f.InferenceTotal(5, naive);
  ASSERT_NE(at5, f.InferenceTotal(5));  // the options change the total, so the test can tell
  FitPlan plan;
  plan.inference = naive;
  const auto fits = FitsAtBatch(f.model.graph, f.shapes_at, f.target, plan, BudgetOf(at5));
  EXPECT_EQ(*LargestFittingBatch(fits, 1 << 10), 5);
}

TEST(FitsAtBatchTest, TrainingPlanIsUsedWhenSet) {
  const Fixture& f = Shared();
  // Adam's two states make training larger than inference (SGD's plan is not: inference pads
  // the Linear weight to FRACTAL_NZ).
  const TrainingOptions adam{Optimizer::kAdam, Amp::kNone, 1};
  const int64_t at5 = f.TrainingTotal(5, adam);
  ASSERT_GT(at5, f.InferenceTotal(5));
  FitPlan plan;
  plan.training = adam;
  const auto train_fits = FitsAtBatch(f.model.graph, f.shapes_at, f.target, plan, BudgetOf(at5));
  EXPECT_TRUE(*train_fits(5));
  EXPECT_FALSE(*train_fits(6));
  // The inference plan at the same budget fits batch 5 and more.
  const auto inference_fits = FitsAtBatch(f.model.graph, f.shapes_at, f.target, {}, BudgetOf(at5));
  EXPECT_TRUE(*inference_fits(6));
}

TEST(FitsAtBatchTest, ShapeErrorsPropagate) {
  const Fixture& f = Shared();
  const ShapesAtBatch failing = [](int64_t b) -> Expected<ShapeMap> {
    return Status::InvalidArgument("no shapes at batch " + std::to_string(b));
  };
  auto r = FitsAtBatch(f.model.graph, failing, f.target, {}, BudgetOf(1 << 30))(3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "no shapes at batch 3");
}

}  // namespace
}  // namespace npugap::analysis::memory
