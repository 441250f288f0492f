// The import's shape sub-graph folding (ImportOptions::fold_shape_constants) on graphs built here.
#include "npugap/onnx/fold_constants.h"

#include <gtest/gtest.h>

#include "../analysis/compat/compat_test_util.h"
#include "npugap/exec/executor.h"
#include "npugap/onnx/import.h"

namespace npugap::onnx_import {
namespace {

using testing::ModelBuilder;

void Int64Scalar(ModelBuilder& b, const std::string& name, int64_t v) {
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_int64_data(v);
}

void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// Nodes folded by the last import through Bound().
int g_folded = -1;

ImportOptions Bound(std::vector<std::pair<std::string, ir::Shape>> shapes, bool fold = true) {
  ImportOptions o;
  o.folded_nodes = &g_folded;
  o.input_shapes = std::move(shapes);
  o.fold_shape_constants = fold;
  return o;
}

const ir::Value& ValueNamed(const ir::Model& m, const std::string& name) {
  const int id = m.graph.FindValue(name);
  EXPECT_GE(id, 0) << name;
  return m.graph.values[static_cast<size_t>(id < 0 ? 0 : id)];
}

std::vector<std::string> OpTypes(const ir::Model& m) {
  std::vector<std::string> ops;
  for (const auto& n : m.graph.nodes) ops.push_back(n.op_type);
  return ops;
}

// Positions as BERT's embedding computes them:
// x[N, S] -> Shape -> Gather(1) -> Range(0, S, 1) -> Expand(to Shape(x)) -> Cast -> Add(x) -> y.
ModelBuilder PositionsModel() {
  ModelBuilder b;
  b.Input("x", {-1, -1}).Output("y", {-1, -1});
  Int64Scalar(b, "one", 1);
  Int64Scalar(b, "zero", 0);
  b.Node("Shape", {"x"}, {"s"}, "shape");
  b.Node("Gather", {"s", "one"}, {"seq"}, "gather");
  IntAttr(testing::LastNode(b), "axis", 0);
  b.Node("Range", {"zero", "seq", "one"}, {"pos"}, "range");
  b.Node("Expand", {"pos", "s"}, {"pos_nd"}, "expand");
  b.Node("Cast", {"pos_nd"}, {"pos_f"}, "cast");
  IntAttr(testing::LastNode(b), "to", onnx::TensorProto::FLOAT);
  b.Node("Add", {"x", "pos_f"}, {"y"}, "add");
  return b;
}

std::vector<float> Execute(const ir::Model& m, const ir::Tensor& x) {
  auto executor = exec::Executor::Create(m, {.num_threads = 1, .fuse = false});
  EXPECT_TRUE(executor.ok()) << executor.status().message();
  if (!executor.ok()) return {};
  auto out = executor->Run({x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return {};
  auto span = (*out)[0].span<float>();
  return {span.begin(), span.end()};
}

TEST(FoldConstantsTest, RangeFoldsSoTheExpandAndEverythingAfterItGetStaticShapes) {
  const auto shapes = std::vector<std::pair<std::string, ir::Shape>>{{"x", {2, 5}}};
  const ir::Model plain = testing::Import(PositionsModel(), Bound(shapes, false));
  // libonnx's inference alone leaves the Range's length unknown: the gap this pass closes.
  EXPECT_FALSE(ValueNamed(plain, "pos").type.StaticShape().has_value());
  EXPECT_EQ(g_folded, 0);

  const ir::Model folded = testing::Import(PositionsModel(), Bound(shapes));
  EXPECT_EQ(g_folded, 3);  // Shape, Gather, Range
  // The rank-2 Expand and Cast stay nodes (shape-like results only become initializers).
  EXPECT_EQ(OpTypes(folded), (std::vector<std::string>{"Expand", "Cast", "Add"}));
  const ir::Tensor* pos = folded.graph.Initializer(folded.graph.FindValue("pos"));
  ASSERT_NE(pos, nullptr);
  EXPECT_EQ(std::vector<int64_t>(pos->span<int64_t>().begin(), pos->span<int64_t>().end()),
            (std::vector<int64_t>{0, 1, 2, 3, 4}));
  for (const char* name : {"pos_nd", "pos_f", "y"}) {
    EXPECT_EQ(ValueNamed(folded, name).type.StaticShape(), (ir::Shape{2, 5})) << name;
  }
  const ir::Tensor x = ir::Tensor::FromVector<float>({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(Execute(folded, x), Execute(plain, x));
  EXPECT_EQ(Execute(folded, x), (std::vector<float>{0, 2, 4, 6, 8, 5, 7, 9, 11, 13}));
}

// x[N, 3, 4] -> Reshape(x, Concat(Slice(Shape(x), 0, 1), [-1])) -> y[N, 12].
ModelBuilder FlattenModel() {
  ModelBuilder b;
  b.Input("x", {-1, 3, 4}).Output("y", {-1, 12});
  testing::Int64Initializer(b, "starts", {0});
  testing::Int64Initializer(b, "ends", {1});
  testing::Int64Initializer(b, "minus_one", {-1});
  b.Node("Shape", {"x"}, {"s"}, "shape");
  b.Node("Slice", {"s", "starts", "ends"}, {"n"}, "slice");
  b.Node("Concat", {"n", "minus_one"}, {"target"}, "concat");
  IntAttr(testing::LastNode(b), "axis", 0);
  b.Node("Reshape", {"x", "target"}, {"y"}, "reshape");
  return b;
}

TEST(FoldConstantsTest, ShapeConcatReshapeLeavesOnlyTheReshapeWithAConstantShape) {
  const ir::Model m = testing::Import(FlattenModel(), Bound({{"x", {2, 3, 4}}}));
  EXPECT_EQ(g_folded, 3);
  EXPECT_EQ(OpTypes(m), (std::vector<std::string>{"Reshape"}));
  const ir::Tensor* target = m.graph.Initializer(m.graph.nodes[0].inputs[1]);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(std::vector<int64_t>(target->span<int64_t>().begin(), target->span<int64_t>().end()),
            (std::vector<int64_t>{2, -1}));
  // The intermediate folded values are not kept as initializers nobody reads.
  EXPECT_EQ(m.graph.FindValue("n"), -1);
  EXPECT_EQ(ValueNamed(m, "y").type.StaticShape(), (ir::Shape{2, 12}));
}

TEST(FoldConstantsTest, UnboundInputDoesNotFold) {
  ImportOptions unbound = Bound({});
  const ir::Model m = testing::Import(FlattenModel(), unbound);
  EXPECT_EQ(g_folded, 0);
  EXPECT_EQ(OpTypes(m), (std::vector<std::string>{"Shape", "Slice", "Concat", "Reshape"}));
  EXPECT_EQ(m.graph.Initializer(m.graph.nodes[3].inputs[1]), nullptr);
  const ir::Model p = testing::Import(PositionsModel(), unbound);
  EXPECT_EQ(g_folded, 0);
  EXPECT_FALSE(ValueNamed(p, "pos").type.StaticShape().has_value());
}

TEST(FoldConstantsTest, RangeLongerThanTheLimitIsNotFoldedAndNothingWarns) {
  const int64_t seq = kMaxFoldElements + 1;
  const ir::Model m = testing::Import(PositionsModel(), Bound({{"x", {1, seq}}}));
  EXPECT_EQ(g_folded, 2);  // Shape and Gather; the Range's result is too large
  EXPECT_EQ(OpTypes(m), (std::vector<std::string>{"Range", "Expand", "Cast", "Add"}));
  EXPECT_TRUE(m.warnings.empty()) << m.warnings[0];
}

TEST(FoldConstantsTest, IdentityOfAWeightStaysATiedWeightNotACopy) {
  ModelBuilder b;
  b.Input("x", {2}).Output("y", {2});
  b.FloatInitializer("w", {2}, {1, 2});
  b.Node("Identity", {"w"}, {"w_tied"}, "tie");
  b.Node("Add", {"x", "w_tied"}, {"y"}, "add");
  const ir::Model m = testing::Import(b, Bound({}));
  EXPECT_EQ(g_folded, 0);
  EXPECT_EQ(OpTypes(m), (std::vector<std::string>{"Identity", "Add"}));
  EXPECT_EQ(m.graph.initializers.size(), 1u);
}

TEST(FoldConstantsTest, KernelFailureIsAWarningNamingTheNodeAndTheImportGoesOn) {
  // Gather index 5 of a rank-2 shape: the kernel refuses it, the node stays.
  ModelBuilder b;
  b.Input("x", {-1, -1}).Output("y", {-1});
  Int64Scalar(b, "five", 5);
  b.Node("Shape", {"x"}, {"s"}, "shape");
  b.Node("Gather", {"s", "five"}, {"bad"}, "bad_gather");
  IntAttr(testing::LastNode(b), "axis", 0);
  b.Node("Unsqueeze", {"bad", "zero_axes"}, {"y"}, "unsqueeze");
  testing::Int64Initializer(b, "zero_axes", {0});
  const ir::Model m = testing::Import(b, Bound({{"x", {2, 3}}}));
  EXPECT_EQ(OpTypes(m), (std::vector<std::string>{"Gather", "Unsqueeze"}));
  bool named = false;
  for (const auto& w : m.warnings) named = named || w.find("node 'bad_gather' (Gather)") != std::string::npos;
  EXPECT_TRUE(named) << (m.warnings.empty() ? "no warnings" : m.warnings[0]);
}

}  // namespace
}  // namespace npugap::onnx_import
