#include "resnet_chain.h"

#include <string>
#include <utility>
#include <vector>

#include "graph_builder.h"

namespace npugap::bench {
namespace {

int AddWeight(ir::Graph& g, const std::string& name, const ir::Shape& shape) {
  return AddInitializer(g, name, ir::Tensor::Empty(ir::DType::kFloat32, shape));
}

}  // namespace

ir::Model ResNetChain(const ResNetChainSpec& spec) {
  ir::Model m;
  m.opsets[""] = 13;
  ir::Graph& g = m.graph;
  const ir::Shape& act = spec.activation;
  const int64_t channels = act.at(1);
  const int64_t k = spec.kernel_side;
  int x = AddValue(g, "input", ir::DType::kFloat32, act);
  MarkGraphInput(g, x);
  auto node = [&](const std::string& op, std::vector<int> inputs, int out) {
    AddNode(g, op, std::move(inputs), {out});
    if (op == "Conv" && k > 1) {
      ir::Attribute& pads = g.nodes.back().attributes["pads"];
      pads.kind = ir::Attribute::Kind::kInts;
      pads.ints = {k / 2, k / 2, k / 2, k / 2};
    }
  };
  for (int i = 0; g.nodes.size() < static_cast<size_t>(spec.nodes); ++i) {
    const std::string p = std::to_string(i);
    const int w = AddWeight(g, "w" + p, {channels, channels, k, k});
    const int c = AddValue(g, "conv" + p, ir::DType::kFloat32, act);
    node("Conv", {x, w}, c);
    std::vector<int> bn_in = {c};
    for (const char* s : {"_scale", "_bias", "_mean", "_var"})
      bn_in.push_back(AddWeight(g, "bn" + p + s, {channels}));
    const int b = AddValue(g, "bn" + p, ir::DType::kFloat32, act);
    node("BatchNormalization", bn_in, b);
    // The block's two last nodes, in either order; the skip joins the block's input x.
    const int mid = AddValue(g, (spec.relu_before_add ? "relu" : "add") + p, ir::DType::kFloat32, act);
    const int out = AddValue(g, (spec.relu_before_add ? "add" : "relu") + p, ir::DType::kFloat32, act);
    if (spec.relu_before_add) {
      node("Relu", {b}, mid);
      node("Add", {mid, x}, out);
    } else {
      node("Add", {b, x}, mid);
      node("Relu", {mid}, out);
    }
    x = out;
  }
  MarkGraphOutput(g, x);
  g.RebuildLinks();
  return m;
}

}  // namespace npugap::bench
