#include "npugap/ir/graph.h"

#include <gtest/gtest.h>

#include "npugap/ir/flops.h"

namespace npugap::ir {
namespace {

Value Tensor4(const std::string& name, std::vector<Dim> dims) {
  Value v;
  v.name = name;
  v.type = {DType::kFloat32, std::move(dims)};
  return v;
}

}  // namespace

TEST(GraphTest, AttributesFallBackWhenMissingOrOfAnotherKind) {
  Node n;
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = 3;
  n.attributes["axis"] = a;
  EXPECT_EQ(n.GetInt("axis", 0), 3);
  EXPECT_EQ(n.GetInt("other", 7), 7);
  EXPECT_EQ(n.GetFloat("axis", 1.5f), 1.5f);  // wrong kind: fallback
  EXPECT_EQ(n.GetInts("pads", {0, 0}), (std::vector<int64_t>{0, 0}));
}

TEST(GraphTest, LinksAndSymbolicShapes) {
  Graph g;
  const int x = g.AddValue(Tensor4("x", {Dim::Symbolic("batch"), Dim::Static(8)}));
  const int y = g.AddValue(Tensor4("y", {Dim::Symbolic("batch"), Dim::Static(8)}));
  Node relu;
  relu.op_type = "Relu";
  relu.inputs = {x};
  relu.outputs = {y};
  g.nodes.push_back(relu);
  g.RebuildLinks();
  EXPECT_EQ(g.values[static_cast<size_t>(y)].producer, 0);
  EXPECT_EQ(g.values[static_cast<size_t>(x)].consumers, std::vector<int>{0});
  EXPECT_EQ(g.FindValue("y"), y);
  EXPECT_EQ(g.FindValue("z"), -1);
  EXPECT_FALSE(g.values[static_cast<size_t>(x)].type.StaticShape().has_value());
  EXPECT_EQ(g.values[static_cast<size_t>(x)].type.ToString(), "float32[batchx8]");
  EXPECT_FALSE(NodeFlops(g, g.nodes[0]).has_value());  // symbolic batch: unknown
}

TEST(GraphTest, ConvFlopsAreTwicePerMacAcrossGroups) {
  Graph g;
  const int x = g.AddValue(Tensor4("x", {Dim::Static(1), Dim::Static(4), Dim::Static(8), Dim::Static(8)}));
  // Grouped conv, 2 groups: weight [8, 4/2, 3, 3]; output [1, 8, 6, 6].
  const int w = g.AddValue(Tensor4("w", {Dim::Static(8), Dim::Static(2), Dim::Static(3), Dim::Static(3)}));
  const int y = g.AddValue(Tensor4("y", {Dim::Static(1), Dim::Static(8), Dim::Static(6), Dim::Static(6)}));
  Node conv;
  conv.op_type = "Conv";
  conv.inputs = {x, w};
  conv.outputs = {y};
  g.nodes.push_back(conv);
  // 288 outputs, each 2*3*3 = 18 MACs.
  EXPECT_EQ(NodeMacs(g, g.nodes[0]).value(), 288 * 18);
  EXPECT_EQ(NodeFlops(g, g.nodes[0]).value(), 2 * 288 * 18);
}

}  // namespace npugap::ir
