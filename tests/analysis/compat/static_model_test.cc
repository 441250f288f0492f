// --write-static: shape chains folded with the executor's kernels, same outputs, ATC command line.
#include "npugap/analysis/compat/static_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "compat_test_util.h"
#include "npugap/exec/executor.h"
#include "npugap/onnx/export.h"

namespace npugap::compat {
namespace {

using testing::Import;
using testing::ModelBuilder;

// x[N, 3, 4] -> Relu -> Reshape(Concat(Gather(Shape(x), 0), Unsqueeze(Constant 12))) -> y[N, 12].
ModelBuilder FlattenModel() {
  ModelBuilder b;
  b.Input("x", {-1, 3, 4}).Output("y", {-1, 12});
  testing::Int64Initializer(b, "zero", {0});
  testing::Int64Initializer(b, "axes", {0});
  b.Node("Relu", {"x"}, {"r"}, "relu");
  b.Node("Shape", {"r"}, {"s"}, "shape");
  b.Node("Gather", {"s", "zero"}, {"n"}, "gather");
  b.Node("Constant", {}, {"c12"}, "const12");
  auto* value = testing::LastNode(b)->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_int64_data(12);
  b.Node("Unsqueeze", {"c12", "axes"}, {"twelve"}, "unsqueeze");
  b.Node("Concat", {"n", "twelve"}, {"target"}, "concat");
  auto* axis = testing::LastNode(b)->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  b.Node("Reshape", {"r", "target"}, {"y"}, "reshape");
  return b;
}

std::vector<float> RunModel(const ir::Model& m, const ir::Tensor& x) {
  exec::ExecutorOptions options;
  options.fuse = false;
  auto executor = exec::Executor::Create(m, options);
  EXPECT_TRUE(executor.ok()) << executor.status().message();
  if (!executor.ok()) return {};
  auto out = executor->Run({x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].shape(), (ir::Shape{2, 12}));
  auto span = (*out)[0].span<float>();
  return {span.begin(), span.end()};
}

TEST(StaticModelTest, FoldsTheShapeChainAndKeepsTheOutputs) {
  onnx_import::ImportOptions bound;
  bound.batch = 2;
  const ir::Model model = Import(FlattenModel(), bound);
  StaticModelStats stats;
  auto fixed = MakeStaticModel(model, &stats);
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  // The import's folding pass: Shape, Gather, Unsqueeze(Constant) and Concat computed into
  // initializers; the Constant, read by the folded Unsqueeze only, removed.
  EXPECT_EQ(stats.nodes_folded, 4);
  EXPECT_EQ(stats.nodes_removed, 1);
  ASSERT_EQ(fixed->graph.nodes.size(), 2u);
  EXPECT_EQ(fixed->graph.nodes[0].op_type, "Relu");
  EXPECT_EQ(fixed->graph.nodes[1].op_type, "Reshape");
  const int target = fixed->graph.FindValue("target");
  ASSERT_NE(fixed->graph.Initializer(target), nullptr);
  const auto dims = fixed->graph.Initializer(target)->span<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(dims.begin(), dims.end()), (std::vector<int64_t>{2, 12}));
  // Folded values nobody reads any more are not written; the file's own initializers are kept.
  std::vector<std::string> initializers;
  for (const auto& [id, tensor] : fixed->graph.initializers)
    initializers.push_back(fixed->graph.values[static_cast<size_t>(id)].name);
  std::sort(initializers.begin(), initializers.end());
  EXPECT_EQ(initializers, (std::vector<std::string>{"axes", "target", "zero"}));

  // The written file imports again, checks clean, and computes what the original computes.
  auto bytes = onnx_import::SerializeModel(*fixed);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  auto reread = onnx_import::LoadModelFromBytes(*bytes, ".", "static.onnx");
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  EXPECT_TRUE(testing::Check(*reread).clean);
  std::vector<float> xs(24);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) - 11.5f;
  const ir::Tensor x = ir::Tensor::FromVector<float>({2, 3, 4}, xs);
  EXPECT_EQ(RunModel(model, x), RunModel(*reread, x));
}

TEST(StaticModelTest, UnboundInputIsAnErrorNamingIt) {
  auto fixed = MakeStaticModel(Import(FlattenModel()));
  ASSERT_FALSE(fixed.ok());
  EXPECT_NE(fixed.status().message().find("input 'x'"), std::string::npos) << fixed.status().message();
  EXPECT_NE(fixed.status().message().find("--batch"), std::string::npos);
}

TEST(StaticModelTest, AtcCommandLineTakesItsValuesFromTheProfile) {
  onnx_import::ImportOptions bound;
  bound.batch = 2;
  const std::string cmd =
      AtcCommandLine(Import(FlattenModel(), bound), testing::Target("ascend310p3"), "out/model.onnx", "fp16");
  EXPECT_EQ(cmd,
            "atc --model=out/model.onnx --framework=5 --output=model --input_shape=\"x:2,3,4\" "
            "--soc_version=Ascend310P3 --precision_mode_v2=fp16");
}

// The .om goes where atc runs, named after the model: only the last extension is dropped, and a
// model path without a folder or an extension is kept as it is.
TEST(StaticModelTest, AtcOutputIsTheModelsStemInTheCurrentDirectory) {
  onnx_import::ImportOptions bound;
  bound.batch = 2;
  const ir::Model m = Import(FlattenModel(), bound);
  const target::Target t = testing::Target("ascend910b2");
  EXPECT_NE(AtcCommandLine(m, t, "/models/resnet50.v2.onnx", "fp16").find(" --output=resnet50.v2 "),
            std::string::npos);
  EXPECT_NE(AtcCommandLine(m, t, "bert", "fp16").find(" --output=bert "), std::string::npos);
  EXPECT_EQ(AtcCommandLine(m, t, "../a/b.onnx", "fp16").find("--output=../"), std::string::npos);
}

}  // namespace
}  // namespace npugap::compat
