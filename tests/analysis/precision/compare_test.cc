#include "npugap/analysis/precision/compare.h"

#include <cmath>

#include <gtest/gtest.h>

#include "../../onnx/model_builder.h"
#include "npugap/exec/executor.h"
#include "npugap/exec/random_inputs.h"
#include "npugap/numerics/half.h"
#include "npugap/onnx/import.h"

namespace npugap::analysis::precision {
namespace {

using npugap::testing::ModelBuilder;

// x[4,3] -> MatMul W -> h -> Relu -> r -> MatMul V -> scores[4,5]
ir::Model SmallClassifier() {
  ModelBuilder b;
  b.Input("x", {4, 3}).Output("scores", {4, 5});
  b.FloatInitializer("W", {3, 6},
                     {0.5f, -1, 2, 0.25f, 1, -0.5f, 1, 1, -1, 0.5f, 0.75f, 2, -2, 0.5f, 1, 1, -0.25f, 0.5f});
  std::vector<float> v(30);
  for (int i = 0; i < 30; ++i) v[static_cast<size_t>(i)] = std::sin(static_cast<float>(i)) * 0.7f;
  b.FloatInitializer("V", {6, 5}, v);
  b.Node("MatMul", {"x", "W"}, {"h"}, "mm1")
      .Node("Relu", {"h"}, {"r"}, "relu")
      .Node("MatMul", {"r", "V"}, {"scores"}, "mm2");
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "small.onnx");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

ir::Tensor RoundedToBf16(const ir::Tensor& t, float scale_of = 1.0f) {
  ir::Tensor c = t.Clone();
  for (float& x : c.span<float>()) x = numerics::BFloat16ToFloat(numerics::FloatToBFloat16(x)) * scale_of;
  return c;
}

// A stand-in for the emulated target: the FP32 executor whose observed and returned tensors are
// rounded to bfloat16 (and, for `broken`, scaled by -1 so that node fails).
TracedRun Bf16Observer(const ir::Model& m, std::string broken = "") {
  auto exec = std::make_shared<exec::Executor>(exec::Executor::Create(m, {1, false}).value());
  return [exec, broken](const std::vector<ir::Tensor>& inputs,
                        const EmulationObserver& observer) -> Expected<std::vector<ir::Tensor>> {
    auto out = exec->Run(inputs, [&](const ir::Node& n, const std::vector<ir::Tensor>& outs) {
      std::vector<ir::Tensor> rounded;
      for (const auto& t : outs) rounded.push_back(RoundedToBf16(t, n.name == broken ? -1.0f : 1.0f));
      numerics::RoundStats st;
      st.flushed = 1;
      if (observer) observer(n, rounded, std::vector<numerics::RoundStats>(outs.size(), st));
    });
    if (!out.ok()) return out.status();
    std::vector<ir::Tensor> r;
    for (const auto& t : *out) r.push_back(RoundedToBf16(t, broken == "mm2" ? -1.0f : 1.0f));
    return r;
  };
}

std::vector<std::vector<ir::Tensor>> Inputs(const ir::Model& m, int n) {
  std::vector<std::vector<ir::Tensor>> sets;
  for (int s = 0; s < n; ++s) sets.push_back(exec::RandomInputs(m.graph, static_cast<uint64_t>(s)).value());
  return sets;
}

TEST(PrecisionCompareTest, EveryNodeOutputInTopologicalOrder) {
  const ir::Model m = SmallClassifier();
  auto ref = MakeReferenceRun(m, ReferencePrecision::kFP32, 1);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  const auto sets = Inputs(m, 3);
  auto trace = TraceReference(m, *ref, sets);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto c = CompareWithReference(m, *trace, Bf16Observer(m), sets, {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->tensors.size(), 3u);
  EXPECT_EQ(c->tensors[0].name, "h");
  EXPECT_EQ(c->tensors[0].node, "mm1");
  EXPECT_EQ(c->tensors[1].op_type, "Relu");
  EXPECT_EQ(c->tensors[2].name, "scores");
  EXPECT_TRUE(c->tensors[2].is_output);
  EXPECT_EQ(c->tensors[2].shape, (ir::Shape{4, 5}));
  EXPECT_EQ(c->input_sets, 3);
  EXPECT_EQ(c->samples, 3 * 4);  // rows: the batch of 4 in each set
  ASSERT_EQ(c->outputs, (std::vector<size_t>{2}));
  for (const auto& t : c->tensors) {
    EXPECT_EQ(t.metrics.elements, t.name == "scores" ? 3 * 20 : 3 * 24);
    EXPECT_GT(t.metrics.cosine, 0.999);  // bf16 rounding of fp32 values: ~2^-9 relative
    EXPECT_LT(t.metrics.max_rel_err, 1.0 / 256);
    EXPECT_GT(t.metrics.max_abs_err, 0);
    EXPECT_EQ(t.metrics.flushed, 3);  // the stand-in's RoundStats, once per sample
    EXPECT_TRUE(t.pass);
  }
  EXPECT_TRUE(c->outputs_pass);
  EXPECT_FALSE(c->first_failing.has_value());
  ASSERT_EQ(c->classification.size(), 1u);
  EXPECT_EQ(c->classification[0].rows, 12);
  EXPECT_EQ(c->classification[0].top_k, 5);
  EXPECT_DOUBLE_EQ(c->classification[0].top5_overlap, 1.0);  // 5 of 5 classes: always all
}

TEST(PrecisionCompareTest, FirstFailingTensorAndItsNode) {
  const ir::Model m = SmallClassifier();
  const auto sets = Inputs(m, 2);
  auto trace = TraceReference(m, MakeReferenceRun(m, ReferencePrecision::kFP32, 1).value(), sets);
  ASSERT_TRUE(trace.ok());
  auto c = CompareWithReference(m, *trace, Bf16Observer(m, "relu"), sets, {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(c->first_failing.has_value());
  EXPECT_EQ(c->tensors[*c->first_failing].node, "relu");
  EXPECT_LT(c->tensors[1].metrics.cosine, 0);
  EXPECT_TRUE(c->tensors[2].pass);  // the stand-in does not propagate the error
  auto out = CompareWithReference(m, *trace, Bf16Observer(m, "mm2"), sets, {});
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->outputs_pass);
  ASSERT_EQ(out->classification.size(), 1u);
  EXPECT_LT(out->classification[0].top1_agreement, 0.5);  // negated scores: arg-max moves
}

TEST(PrecisionCompareTest, TopOneAndAccuracyWithLabels) {
  const ir::Model m = SmallClassifier();
  const auto sets = Inputs(m, 2);
  auto ref = MakeReferenceRun(m, ReferencePrecision::kFP32, 1).value();
  auto trace = TraceReference(m, ref, sets).value();
  // Labels = the reference's own arg-max, except for the first row: reference accuracy 7/8.
  std::vector<int64_t> labels;
  for (const auto& s : sets) {
    const ir::Tensor scores = ref(s, nullptr).value()[0];
    for (int64_t r = 0; r < 4; ++r) {
      const float* row = scores.data<float>() + r * 5;
      labels.push_back(std::max_element(row, row + 5) - row);
    }
  }
  labels[0] = (labels[0] + 1) % 5;
  CompareSettings settings;
  settings.labels = labels;
  auto c = CompareWithReference(m, trace, Bf16Observer(m), sets, settings);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->classification.size(), 1u);
  const ClassScores& cs = c->classification[0];
  ASSERT_TRUE(cs.reference_accuracy.has_value());
  EXPECT_DOUBLE_EQ(*cs.reference_accuracy, 7.0 / 8);
  // bf16 rounding may flip near-ties; the target's accuracy follows its own arg-max.
  EXPECT_NEAR(*cs.target_accuracy, *cs.reference_accuracy, 1.0 - cs.top1_agreement + 1e-12);

  settings.labels.pop_back();
  auto wrong = CompareWithReference(m, trace, Bf16Observer(m), sets, settings);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("7 labels, but output 'scores' has 8 rows"), std::string::npos);
  settings.labels = std::vector<int64_t>(8, 9);
  auto range = CompareWithReference(m, trace, Bf16Observer(m), sets, settings);
  ASSERT_FALSE(range.ok());
  EXPECT_NE(range.status().message().find("label 9"), std::string::npos);
}

TEST(PrecisionCompareTest, NonFiniteInputsAreReportedNotFatal) {
  const ir::Model m = SmallClassifier();
  auto sets = Inputs(m, 1);
  sets[0][0] = sets[0][0].Clone();
  sets[0][0].data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  sets[0][0].data<float>()[1] = std::numeric_limits<float>::infinity();
  auto trace = TraceReference(m, MakeReferenceRun(m, ReferencePrecision::kFP32, 1).value(), sets);
  ASSERT_TRUE(trace.ok());
  auto c = CompareWithReference(m, *trace, Bf16Observer(m), sets, {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->non_finite_inputs.size(), 1u);
  EXPECT_EQ(c->non_finite_inputs[0].input, "x");
  EXPECT_EQ(c->non_finite_inputs[0].nan, 1);
  EXPECT_EQ(c->non_finite_inputs[0].inf, 1);
}

TEST(PrecisionCompareTest, Float64ReferenceRunsOnDoubleKernels) {
  const ir::Model m = SmallClassifier();
  auto promoted = PromoteToFloat64(m);
  ASSERT_TRUE(promoted.ok());
  EXPECT_EQ(promoted->graph.values[static_cast<size_t>(promoted->graph.FindValue("W"))].type.dtype,
            ir::DType::kFloat64);
  auto r64 = MakeReferenceRun(m, ReferencePrecision::kFP64, 1);
  ASSERT_TRUE(r64.ok()) << r64.status().message();
  const auto sets = Inputs(m, 1);
  auto out64 = (*r64)(sets[0], nullptr);
  ASSERT_TRUE(out64.ok()) << out64.status().message();
  ASSERT_EQ((*out64)[0].dtype(), ir::DType::kFloat64);
  auto out32 = MakeReferenceRun(m, ReferencePrecision::kFP32, 1).value()(sets[0], nullptr).value();
  ErrorAccumulator a;
  ASSERT_TRUE(a.Add(out32[0], (*out64)[0]).ok());
  const TensorMetrics d = a.Finish();
  EXPECT_GT(d.cosine, 0.9999999);
  EXPECT_LT(d.max_rel_err, 1e-5);
  // The FP64 trace compares with an FP32 target like any other.
  auto trace = TraceReference(m, *r64, sets);
  ASSERT_TRUE(trace.ok());
  auto c = CompareWithReference(m, *trace, Bf16Observer(m), sets, {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->tensors.size(), 3u);
}

}  // namespace
}  // namespace npugap::analysis::precision
