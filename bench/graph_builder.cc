#include "graph_builder.h"

#include <utility>

namespace npugap::bench {

int AddValue(ir::Graph& g, const std::string& name, ir::DType dtype, const ir::Shape& shape) {
  ir::Value v;
  v.name = name;
  std::vector<ir::Dim> dims;
  for (int64_t d : shape) dims.push_back(ir::Dim::Static(d));
  v.type = {dtype, std::move(dims)};
  return g.AddValue(std::move(v));
}

int AddInitializer(ir::Graph& g, const std::string& name, ir::Tensor t) {
  const ir::Shape shape(t.shape().begin(), t.shape().end());
  const int id = AddValue(g, name, t.dtype(), shape);
  g.values[static_cast<size_t>(id)].is_initializer = true;
  g.initializers[id] = std::move(t);
  return id;
}

void AddNode(ir::Graph& g, const std::string& op, std::vector<int> inputs, std::vector<int> outputs) {
  ir::Node n;
  n.name = op + "_" + std::to_string(g.nodes.size());
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  g.nodes.push_back(std::move(n));
}

void MarkGraphInput(ir::Graph& g, int value) {
  g.values[static_cast<size_t>(value)].is_graph_input = true;
  g.inputs.push_back(value);
}

void MarkGraphOutput(ir::Graph& g, int value) {
  g.values[static_cast<size_t>(value)].is_graph_output = true;
  g.outputs.push_back(value);
}

}  // namespace npugap::bench
