// Building blocks for the graphs the benchmarks build in memory (no ONNX import): values with
// static shapes, initializers, nodes, graph inputs and outputs.
#pragma once

#include <string>
#include <vector>

#include "npugap/ir/graph.h"

namespace npugap::bench {

int AddValue(ir::Graph& g, const std::string& name, ir::DType dtype, const ir::Shape& shape);
// A value of t's dtype and shape, marked as an initializer holding t.
int AddInitializer(ir::Graph& g, const std::string& name, ir::Tensor t);
// Named OP_INDEX, unique within the graph.
void AddNode(ir::Graph& g, const std::string& op, std::vector<int> inputs, std::vector<int> outputs);
void MarkGraphInput(ir::Graph& g, int value);
void MarkGraphOutput(ir::Graph& g, int value);

}  // namespace npugap::bench
