// The FP32 reference executor: runs an ir::Model node by node in topological order with the
// kernels of the op table. Intermediate tensors are released after their last consumer.
// An observer sees every node's outputs (the precision analysis compares them layer by layer).
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/exec/op_table.h"
#include "npugap/ir/graph.h"

namespace npugap::exec {

struct ExecutorOptions {
  int num_threads = 0;  // 0: DefaultNumThreads()
  // Run a rewritten copy of the model (constants folded, Conv + Add + activation fused; see
  // fusion.h). Off when every original node must be observed, as the precision analysis does.
  bool fuse = true;
};

// Called after each node of the main graph with its outputs (undefined for omitted ones).
using NodeObserver = std::function<void(const ir::Node& node, const std::vector<ir::Tensor>& outputs)>;

class Executor {
 public:
  // Resolves a kernel for every node (subgraphs included). An op without a kernel at the model's
  // opset is an Unsupported error naming the node.
  static Expected<Executor> Create(const ir::Model& model, ExecutorOptions options = {});

  // Inputs in the order of model.graph.inputs. Checks each input's dtype and static dims.
  Expected<std::vector<ir::Tensor>> Run(const std::vector<ir::Tensor>& inputs,
                                        const NodeObserver& observer = nullptr) const;

  // The model that runs: the rewritten copy when options.fuse, else the caller's model.
  const ir::Model& model() const { return *model_; }

 private:
  friend class Frame;
  Executor(const ir::Model& model, ExecutorOptions options) : model_(&model), options_(options) {}
  Status Resolve(const ir::Graph& graph);

  std::shared_ptr<const ir::Model> rewritten_;  // owns the fused copy; model_ points into it
  const ir::Model* model_;
  ExecutorOptions options_;
  std::unordered_map<const ir::Node*, KernelFn> kernels_;
};

// Checks one input tensor against the model's declared type ("input 'x': expected ... got ...").
Status CheckInput(const ir::Value& declared, const ir::Tensor& actual);

}  // namespace npugap::exec
