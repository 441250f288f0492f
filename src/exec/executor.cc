#include "npugap/exec/executor.h"

#include <fmt/format.h>

#include "npugap/exec/fusion.h"
#include "npugap/exec/parallel.h"

namespace npugap::exec {

Status CheckInput(const ir::Value& declared, const ir::Tensor& actual) {
  const ir::ValueType& t = declared.type;
  if (t.dtype != ir::DType::kUndefined && t.dtype != actual.dtype()) {
    return Status::InvalidArgument(fmt::format("input '{}': expected {}, got {}[{}]", declared.name, t.ToString(),
                                               ir::DTypeName(actual.dtype()), ir::ShapeToString(actual.shape())));
  }
  if (t.dims) {
    bool ok = t.dims->size() == actual.shape().size();
    for (size_t i = 0; ok && i < t.dims->size(); ++i) {
      ok = !(*t.dims)[i].is_static() || (*t.dims)[i].value == actual.shape()[i];
    }
    if (!ok) {
      return Status::InvalidArgument(fmt::format("input '{}': expected {}, got {}[{}]", declared.name, t.ToString(),
                                                 ir::DTypeName(actual.dtype()), ir::ShapeToString(actual.shape())));
    }
  }
  return Status::Ok();
}

// The values of one graph invocation. Subgraph frames look names up in their parent frame.
class Frame final : public SubgraphRunner {
 public:
  Frame(const Executor& exec, const ir::Graph& graph, const Frame* parent)
      : exec_(exec), graph_(graph), parent_(parent), slots_(graph.values.size()) {}

  Expected<std::vector<ir::Tensor>> Run(const ir::Graph& body, const std::vector<ir::Tensor>& inputs) override {
    Frame child(exec_, body, this);
    return child.Execute(inputs, nullptr);
  }

  Expected<std::vector<ir::Tensor>> Execute(const std::vector<ir::Tensor>& inputs, const NodeObserver& observer) {
    const ir::Graph& g = graph_;
    if (inputs.size() != g.inputs.size()) {
      return Status::InvalidArgument(fmt::format("graph '{}' takes {} inputs, got {}", g.name, g.inputs.size(),
                                                 inputs.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) slots_[static_cast<size_t>(g.inputs[i])] = inputs[i];
    for (const auto& [id, tensor] : g.initializers) slots_[static_cast<size_t>(id)] = tensor;
    for (int id : g.outer_values) {
      const ir::Tensor* t = parent_ ? parent_->Lookup(g.values[static_cast<size_t>(id)].name) : nullptr;
      if (!t) return Status::Internal(fmt::format("outer value '{}' not found", g.values[static_cast<size_t>(id)].name));
      slots_[static_cast<size_t>(id)] = *t;
    }
    // Remaining uses decide when an intermediate can be freed; graph outputs are never freed.
    std::vector<int> uses(g.values.size(), 0);
    for (const ir::Value& v : g.values) {
      const size_t id = static_cast<size_t>(&v - g.values.data());
      uses[id] = static_cast<int>(v.consumers.size()) + (v.is_graph_output ? 1 : 0);
    }
    // Nodes owning subgraphs may read any earlier value by name: keep everything alive then.
    const bool keep_all = HasSubgraphs(g);

    for (const ir::Node& node : g.nodes) {
      KernelContext ctx{node, OpsetOf(node.domain), {}, {}};
      ctx.num_threads = exec_.options_.num_threads;
      ctx.subgraphs = this;
      ctx.inputs.reserve(node.inputs.size());
      for (int in : node.inputs) {
        if (in == ir::kNoValue) {
          ctx.inputs.push_back(nullptr);
          continue;
        }
        const ir::Tensor& t = slots_[static_cast<size_t>(in)];
        if (!t.defined()) {
          return Status::Internal(fmt::format("node '{}': input '{}' has no value", node.name,
                                              g.values[static_cast<size_t>(in)].name));
        }
        ctx.inputs.push_back(&t);
      }
      ctx.outputs.resize(node.outputs.size());
      auto it = exec_.kernels_.find(&node);
      Status s = it->second(ctx);
      if (!s.ok()) {
        // Kernel messages already name the node; add it when a helper did not.
        if (s.message().find(node.name) == std::string::npos) {
          s = s.WithContext(fmt::format("node '{}' ({})", node.name, node.op_type));
        }
        return s;
      }
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        if (node.outputs[o] == ir::kNoValue) continue;
        if (!ctx.outputs[o].defined()) {
          return Status::Internal(fmt::format("node '{}' ({}) produced no output {}", node.name, node.op_type, o));
        }
        slots_[static_cast<size_t>(node.outputs[o])] = ctx.outputs[o];
      }
      if (observer) observer(node, ctx.outputs);
      if (keep_all) continue;
      for (int in : node.inputs) {
        if (in != ir::kNoValue && --uses[static_cast<size_t>(in)] == 0) slots_[static_cast<size_t>(in)] = {};
      }
      for (int out : node.outputs) {
        if (out != ir::kNoValue && uses[static_cast<size_t>(out)] == 0) slots_[static_cast<size_t>(out)] = {};
      }
    }
    std::vector<ir::Tensor> outputs;
    outputs.reserve(g.outputs.size());
    for (int id : g.outputs) outputs.push_back(slots_[static_cast<size_t>(id)]);
    return outputs;
  }

 private:
  const ir::Tensor* Lookup(const std::string& name) const {
    const int id = graph_.FindValue(name);
    if (id >= 0 && slots_[static_cast<size_t>(id)].defined()) return &slots_[static_cast<size_t>(id)];
    return parent_ ? parent_->Lookup(name) : nullptr;
  }

  int64_t OpsetOf(const std::string& domain) const {
    auto it = exec_.model_->opsets.find(domain);
    return it == exec_.model_->opsets.end() ? exec_.model_->DefaultOpset() : it->second;
  }

  static bool HasSubgraphs(const ir::Graph& g) {
    for (const ir::Node& n : g.nodes) {
      for (const auto& [name, a] : n.attributes) {
        if (a.kind == ir::Attribute::Kind::kGraph || a.kind == ir::Attribute::Kind::kGraphs) return true;
      }
    }
    return false;
  }

  const Executor& exec_;
  const ir::Graph& graph_;
  const Frame* parent_;
  std::vector<ir::Tensor> slots_;
};

Status Executor::Resolve(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes) {
    auto it = model_->opsets.find(node.domain);
    const bool domain_known = it != model_->opsets.end() || node.domain.empty();
    const int64_t opset = it != model_->opsets.end() ? it->second : model_->DefaultOpset();
    const OpRow* row = OpTable::Default().Find(node.domain, node.op_type, opset);
    if (row == nullptr) {
      const std::string domain = node.domain.empty() ? "ai.onnx" : node.domain;
      if (!domain_known || !OpTable::Default().Knows(node.domain, node.op_type)) {
        return Status::Unsupported(fmt::format("node '{}': op '{}' of domain '{}' is not supported", node.name,
                                               node.op_type, domain));
      }
      return Status::Unsupported(fmt::format("node '{}': op '{}' has no kernel for opset {} of domain '{}'", node.name,
                                             node.op_type, opset, domain));
    }
    kernels_[&node] = row->kernel;
    for (const auto& [name, a] : node.attributes) {
      if (a.kind == ir::Attribute::Kind::kGraph) NPUGAP_RETURN_IF_ERROR(Resolve(*a.g));
      for (const auto& sub : a.graphs) NPUGAP_RETURN_IF_ERROR(Resolve(*sub));
    }
  }
  return Status::Ok();
}

Expected<Executor> Executor::Create(const ir::Model& model, ExecutorOptions options) {
  if (options.num_threads <= 0) options.num_threads = DefaultNumThreads();
  Executor exec(model, options);
  if (options.fuse) {
    // Kernels must exist for the original nodes too, so errors name what the user wrote.
    NPUGAP_RETURN_IF_ERROR(exec.Resolve(model.graph).WithContext(model.path));
    exec.kernels_.clear();
    NPUGAP_ASSIGN_OR_RETURN(ir::Model fused, FuseForExecution(model));
    exec.rewritten_ = std::make_shared<const ir::Model>(std::move(fused));
    exec.model_ = exec.rewritten_.get();
  }
  NPUGAP_RETURN_IF_ERROR(exec.Resolve(exec.model_->graph).WithContext(model.path));
  return exec;
}

Expected<std::vector<ir::Tensor>> Executor::Run(const std::vector<ir::Tensor>& inputs,
                                                const NodeObserver& observer) const {
  const ir::Graph& g = model_->graph;
  if (inputs.size() != g.inputs.size()) {
    return Status::InvalidArgument(fmt::format("model takes {} inputs, got {}", g.inputs.size(), inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    NPUGAP_RETURN_IF_ERROR(CheckInput(g.values[static_cast<size_t>(g.inputs[i])], inputs[i]));
  }
  SetNumThreads(options_.num_threads);
  Frame frame(*this, g, nullptr);
  return frame.Execute(inputs, observer);
}

}  // namespace npugap::exec
