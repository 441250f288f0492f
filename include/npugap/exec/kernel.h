// The contract between the executor and an op kernel. A kernel reads its node's attributes
// and input tensors, and fills `outputs` (one Tensor per node output, left undefined for an
// omitted optional output). It computes output shapes itself from the actual inputs.
#pragma once

#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/ir/tensor.h"

namespace npugap::exec {

using ir::DType;
using ir::Shape;
using ir::Tensor;

// Runs a subgraph (If/Loop/Scan bodies) in the scope of the calling node, so that the body can
// read values of the enclosing graphs by name.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual Expected<std::vector<Tensor>> Run(const ir::Graph& body,
                                            const std::vector<Tensor>& inputs) = 0;
};

struct KernelContext {
  const ir::Node& node;
  int64_t opset = 0;                    // opset of the node's domain in this model
  std::vector<const Tensor*> inputs;    // nullptr for an omitted optional input
  std::vector<Tensor> outputs;          // sized to node.outputs.size() by the executor
  int num_threads = 1;
  SubgraphRunner* subgraphs = nullptr;  // set for every node; used by control flow

  size_t num_inputs() const { return inputs.size(); }
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != nullptr; }
  const Tensor& input(size_t i) const { return *inputs[i]; }
  size_t num_outputs() const { return outputs.size(); }
  // True when the node asks for output i (it may omit optional outputs).
  bool wants_output(size_t i) const {
    return i < node.outputs.size() && node.outputs[i] != ir::kNoValue;
  }

  // Errors that name the node, e.g. "node 'Conv_3' (Conv): kernel shape 0".
  Status Error(const std::string& what) const;
  Status UnsupportedDType(DType t) const;
};

using KernelFn = Status (*)(KernelContext&);

}  // namespace npugap::exec
