#include "npugap/analysis/precision/suggest_keep.h"

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../../onnx/model_builder.h"
#include "npugap/onnx/import.h"
#include "precision_test_util.h"

namespace npugap::analysis::precision {
namespace {

using npugap::testing::ModelBuilder;

// A chain of 12 Relu nodes n0..n11 (no FLOPs to speak of) ending in one output.
ir::Model Chain() {
  ModelBuilder b;
  b.Input("x", {1, 8}).Output("v12", {1, 8});
  for (int i = 0; i < 12; ++i) {
    b.Node(i % 3 == 0 ? "Relu" : "Sigmoid", {i == 0 ? "x" : "v" + std::to_string(i)},
           {"v" + std::to_string(i + 1)}, "n" + std::to_string(i));
  }
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "chain.onnx");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

// A synthetic target: node i adds error e[i]; each tensor's 1 - cosine is the running sum of the
// errors of the nodes not kept, as in a real chain. With `effect`, the output's 1 - cosine is the
// sum of effect[i] instead: what a node costs at the output need not be what it adds locally.
struct Synthetic {
  std::vector<double> error;
  std::vector<double> effect = {};
  int calls = 0;
  PrecisionComparison operator()(const std::vector<std::string>& keep) {
    ++calls;
    const std::set<std::string> kept(keep.begin(), keep.end());
    PrecisionComparison c;
    double sum = 0;
    for (size_t i = 0; i < error.size(); ++i) {
      const std::string node = "n" + std::to_string(i);
      if (!kept.count(node)) sum += error[i];
      TensorComparison t;
      t.name = "v" + std::to_string(i + 1);
      t.node = node;
      t.metrics.cosine = 1 - sum;
      t.metrics.max_abs_err = 0.01;
      t.pass = t.metrics.cosine >= 0.99;
      t.is_output = i + 1 == error.size();
      c.tensors.push_back(t);
    }
    if (!effect.empty()) {
      double out = 0;
      for (size_t i = 0; i < effect.size(); ++i) out += kept.count("n" + std::to_string(i)) ? 0 : effect[i];
      c.tensors.back().metrics.cosine = 1 - out;
    }
    c.outputs = {error.size() - 1};
    c.outputs_pass = c.tensors.back().pass;
    return c;
  }
};

std::vector<std::string> AllNodes() {
  std::vector<std::string> v;
  for (int i = 0; i < 12; ++i) v.push_back("n" + std::to_string(i));
  return v;
}

TEST(SuggestKeepTest, FindsTheHarmfulNodesAndPrunesTheRest) {
  const ir::Model m = Chain();
  Synthetic target{{1e-5, 3e-3, 1e-5, 1e-5, 1e-5, 2e-3, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5}};
  KeepEvaluator eval = [&](const std::vector<std::string>& keep) -> Expected<PrecisionComparison> {
    return target(keep);
  };
  const PrecisionComparison baseline = target({});
  ASSERT_FALSE(MeetsGoal(baseline, 0.999));
  auto s = SuggestKeep(m, AllNodes(), baseline, eval, eval, {0.999, 48});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->achieved);
  EXPECT_FALSE(s->already_passing);
  EXPECT_EQ(s->nodes, (std::vector<std::string>{"n1", "n5"}));
  EXPECT_EQ(s->ranking[0].node, "n1");
  EXPECT_EQ(s->ranking[1].node, "n5");
  EXPECT_NEAR(s->ranking[0].added_error, 3e-3, 1e-9);
  EXPECT_EQ(s->op_types, (std::vector<std::string>{"Sigmoid"}));
  EXPECT_EQ(s->runs, target.calls - 1);  // the baseline call above is not the search's
  EXPECT_LT(s->runs, 12);                // fewer runs than one per node
  EXPECT_GT(MeetsGoal(s->verified, 0.999), 0);
  EXPECT_EQ(KeepDtypeFileText(*s), "n1\nn5\n");
  const auto mix = nlohmann::json::parse(ModifyMixlistText(*s));
  EXPECT_EQ(mix["black-list"]["to-add"], nlohmann::json::array({"Sigmoid"}));
}

TEST(SuggestKeepTest, PruningDropsNodesTheRankingOverrated) {
  const ir::Model m = Chain();
  // n0 and n1 add the most locally but nothing at the output; n2 is the one that matters.
  Synthetic target{{5e-3, 4e-3, 3e-3, 1e-4, 0, 0, 0, 0, 0, 0, 0, 0},
                   {0, 0, 2e-3, 1e-5, 0, 0, 0, 0, 0, 0, 0, 0}};
  KeepEvaluator eval = [&](const std::vector<std::string>& keep) -> Expected<PrecisionComparison> {
    return target(keep);
  };
  auto s = SuggestKeep(m, AllNodes(), target({}), eval, eval, {0.999, 48});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->achieved);
  EXPECT_EQ(s->ranking[0].node, "n0");
  EXPECT_EQ(s->nodes, (std::vector<std::string>{"n2"}));
}

TEST(SuggestKeepTest, AlreadyPassingKeepsNothing) {
  const ir::Model m = Chain();
  Synthetic target{std::vector<double>(12, 1e-6)};
  KeepEvaluator eval = [&](const std::vector<std::string>& keep) -> Expected<PrecisionComparison> {
    return target(keep);
  };
  auto s = SuggestKeep(m, AllNodes(), target({}), eval, eval, {});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->already_passing);
  EXPECT_TRUE(s->nodes.empty());
  EXPECT_EQ(s->runs, 0);
}

TEST(SuggestKeepTest, UnreachableGoalIsReportedNotAchieved) {
  const ir::Model m = Chain();
  Synthetic target{std::vector<double>(12, 1e-3)};
  KeepEvaluator eval = [&](const std::vector<std::string>& keep) -> Expected<PrecisionComparison> {
    return target(keep);
  };
  // Only half the nodes may be kept in FP32: the other six still add 6e-3.
  std::vector<std::string> half = {"n0", "n1", "n2", "n3", "n4", "n5"};
  auto s = SuggestKeep(m, half, target({}), eval, eval, {0.999, 48});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->achieved);
  EXPECT_EQ(s->nodes.size(), 6u);
}

TEST(SuggestKeepTest, EvaluatorErrorsPropagate) {
  const ir::Model m = Chain();
  Synthetic target{std::vector<double>(12, 1e-3)};
  KeepEvaluator fails = [](const std::vector<std::string>&) -> Expected<PrecisionComparison> {
    return Status::Internal("boom");
  };
  auto s = SuggestKeep(m, AllNodes(), target({}), fails, fails, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "boom");
}

}  // namespace
}  // namespace npugap::analysis::precision

namespace npugap::analysis::precision {
namespace {

TEST(SuggestKeepTest, MixlistNamesAscendIrOpTypes) {
  KeepSuggestion s;
  s.op_types = {"BatchNormalization", "Conv", "Gemm", "NoSuchOp"};
  const auto j = nlohmann::json::parse(ModifyMixlistText(s));
  // From data/precision/mixed_precision_lists.json; an op type it does not list keeps its name.
  EXPECT_EQ(j["black-list"]["to-add"],
            nlohmann::json::array({"BatchNorm", "Conv2D", "MatMulV2", "NoSuchOp"}));
}

// The written mixlist gets its own run in mixed modes only (ATC ignores it elsewhere), with the
// kept op types on the black list and no node forced to FP32.
TEST(SuggestKeepTest, MixlistIsVerifiedByItsOwnRunInMixedModes) {
  const ir::Model m = Chain();
  const target::Target t = testing::Target("ascend910b2");
  KeepSuggestion s;
  s.nodes = {"n1"};
  s.op_types = {"Sigmoid"};
  int runs = 0;
  PlanEvaluator run = [&](const PrecisionPlan& p) -> Expected<PrecisionComparison> {
    ++runs;
    for (size_t i = 0; i < m.graph.nodes.size(); ++i) {
      if (m.graph.nodes[i].op_type == "Sigmoid") EXPECT_EQ(p.nodes[i].decision, Decision::kMixlist);
    }
    return PrecisionComparison{};
  };
  PrecisionOptions o;
  o.mode = "mixed_float16";
  o.keep_fp32_nodes = {"n1"};
  ASSERT_TRUE(VerifyMixlist(m, t, o, run, 0.999, s).ok());
  EXPECT_TRUE(s.mixlist.ran && s.mixlist.applies);
  EXPECT_EQ(runs, 1);
  o.mode = "force_fp16";
  ASSERT_TRUE(VerifyMixlist(m, t, o, run, 0.999, s).ok());
  EXPECT_TRUE(s.mixlist.ran);
  EXPECT_FALSE(s.mixlist.applies);
  EXPECT_EQ(runs, 1);  // not re-run
  s.op_types.clear();  // nothing kept: nothing to check
  ASSERT_TRUE(VerifyMixlist(m, t, o, run, 0.999, s).ok());
  EXPECT_FALSE(s.mixlist.ran);
}

}  // namespace
}  // namespace npugap::analysis::precision
