// The streamed comparison (one input set's reference in memory, metrics on a worker thread) and
// the samples rule shared by `npugap precision` and `npugap analyze`.
#include <cstring>

#include <gtest/gtest.h>

#include "npugap/analysis/precision/compare.h"
#include "npugap/exec/random_inputs.h"
#include "npugap/onnx/export.h"
#include "npugap/target/target.h"

namespace npugap::analysis::precision {
namespace {

// Every field, bit for bit (memcmp of the doubles: NaN cosines compare too).
void ExpectSameBits(const TensorMetrics& a, const TensorMetrics& b, const std::string& name) {
  auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  EXPECT_EQ(a.elements, b.elements) << name;
  EXPECT_TRUE(same(a.cosine, b.cosine)) << name << " " << a.cosine << " " << b.cosine;
  EXPECT_TRUE(same(a.max_abs_err, b.max_abs_err)) << name;
  EXPECT_TRUE(same(a.max_rel_err, b.max_rel_err)) << name;
  EXPECT_TRUE(same(a.rmse, b.rmse)) << name;
  EXPECT_TRUE(same(a.ratio_rel_lt_1e3, b.ratio_rel_lt_1e3)) << name;
  EXPECT_TRUE(same(a.ratio_rel_lt_5e3, b.ratio_rel_lt_5e3)) << name;
  EXPECT_TRUE(same(a.target.mean, b.target.mean) && same(a.target.l2norm, b.target.l2norm)) << name;
  EXPECT_TRUE(same(a.reference.min, b.reference.min) && same(a.reference.max, b.reference.max)) << name;
  EXPECT_EQ(a.saturated + a.rounding_overflow + a.flushed, b.saturated + b.rounding_overflow + b.flushed)
      << name;
}

TEST(PrecisionStreamTest, StreamedGivesTheMetricsOfTheKeptTrace) {
  const ir::Model m = onnx_import::BuildSimpleNet(4, 1);
  auto target = target::LoadTarget("ascend910b2");
  ASSERT_TRUE(target.ok());
  PrecisionOptions po;
  po.mode = "force_fp16";
  auto plan = BuildPrecisionPlan(m, *target, po);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  auto sets = RandomSampleSets(m.graph, 3, 12);  // 12 samples at batch 4: three sets
  ASSERT_TRUE(sets.ok());
  ASSERT_EQ(sets->size(), 3u);
  auto ref = MakeReferenceRun(m, ReferencePrecision::kFP32, 2);
  auto run = MakeTargetRun(m, *plan, 2);
  ASSERT_TRUE(ref.ok() && run.ok());
  auto trace = TraceReference(m, *ref, *sets);
  ASSERT_TRUE(trace.ok());
  auto kept = CompareWithReference(m, *trace, *run, *sets, {});
  auto streamed = CompareStreamed(m, *ref, *run, *sets, {});
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  ASSERT_TRUE(streamed.ok()) << streamed.status().message();
  ASSERT_EQ(kept->tensors.size(), streamed->tensors.size());
  ASSERT_GT(kept->tensors.size(), 3u);
  for (size_t i = 0; i < kept->tensors.size(); ++i) {
    const auto &a = kept->tensors[i], &b = streamed->tensors[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.pass, b.pass);
    ExpectSameBits(a.metrics, b.metrics, a.name);
  }
  EXPECT_GT(kept->tensors[0].metrics.max_abs_err, 0);  // fp16 did round: not a trivial equality
  EXPECT_EQ(kept->first_failing, streamed->first_failing);
  EXPECT_EQ(kept->outputs, streamed->outputs);
  EXPECT_EQ(streamed->input_sets, 3);
  EXPECT_EQ(streamed->samples, 12);
  ASSERT_EQ(kept->classification.size(), streamed->classification.size());
  for (size_t i = 0; i < kept->classification.size(); ++i) {
    EXPECT_EQ(kept->classification[i].rows, streamed->classification[i].rows);
    EXPECT_EQ(kept->classification[i].top1_agreement, streamed->classification[i].top1_agreement);
  }
}

// A target whose one node returns the wrong shape: the error names the node, as before.
TEST(PrecisionStreamTest, MismatchNamesTheNode) {
  const ir::Model m = onnx_import::BuildSimpleNet(2, 1);
  auto ref = MakeReferenceRun(m, ReferencePrecision::kFP32, 1);
  ASSERT_TRUE(ref.ok());
  const std::string victim = m.graph.nodes[0].name;
  TracedRun wrong = [&](const std::vector<ir::Tensor>& inputs,
                        const EmulationObserver& observer) -> Expected<std::vector<ir::Tensor>> {
    return (*ref)(inputs, [&](const ir::Node& n, const std::vector<ir::Tensor>& outs,
                              const std::vector<numerics::RoundStats>& stats) {
      if (n.name != victim) return observer(n, outs, stats);
      std::vector<ir::Tensor> bad = outs;
      bad[0] = bad[0].Reshaped({bad[0].numel()});
      observer(n, bad, stats);
    });
  };
  auto sets = RandomSampleSets(m.graph, 0, 2);
  ASSERT_TRUE(sets.ok());
  auto c = CompareStreamed(m, *ref, wrong, *sets, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("node '" + victim + "'"), std::string::npos) << c.status().message();
  EXPECT_NE(c.status().message().find("shape"), std::string::npos);
}

TEST(PrecisionSamplesTest, SamplesRunInWholeBatches) {
  const ir::Model m = onnx_import::BuildSimpleNet(8, 1);
  auto one = RandomSampleSets(m.graph, 5, 8);  // the case: 8 samples at batch 8
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  EXPECT_EQ(RandomSampleSets(m.graph, 5, 1)->size(), 1u);
  auto two = RandomSampleSets(m.graph, 5, 9);  // a 9th sample needs a second batch
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  // Seeds seed, seed+1: the second set is RandomInputs(seed + 1).
  const ir::Tensor expected = exec::RandomInputs(m.graph, 6).value()[0];
  const ir::Tensor& got = (*two)[1][0];
  ASSERT_EQ(got.numel(), expected.numel());
  EXPECT_EQ(std::memcmp(got.raw_data(), expected.raw_data(), got.nbytes()), 0);
  EXPECT_EQ(RowsPerInputSet((*two)[0]), 8);
  EXPECT_FALSE(RandomSampleSets(m.graph, 0, 0).ok());
}

TEST(PrecisionSamplesTest, WithoutABatchDimensionASetIsOneSample) {
  const ir::Model b1 = onnx_import::BuildSimpleNet(1, 1);
  EXPECT_EQ(RandomSampleSets(b1.graph, 0, 3)->size(), 3u);  // batch 1: as before
  auto f = [](std::vector<int64_t> shape) {
    return ir::Tensor::Empty(ir::DType::kFloat32, std::move(shape));
  };
  EXPECT_EQ(RowsPerInputSet({f({4, 3}), f({4})}), 4);
  EXPECT_EQ(RowsPerInputSet({f({4, 3}), f({3, 4})}), 1);  // no leading dim in common
  EXPECT_EQ(RowsPerInputSet({ir::Tensor::Scalar(1.0f)}), 1);
  EXPECT_EQ(RowsPerInputSet({}), 1);
}

}  // namespace
}  // namespace npugap::analysis::precision
