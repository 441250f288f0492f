// Runs one kernel from the op table on tensors built in the test, without a model file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "npugap/exec/op_table.h"
#include "npugap/ir/graph.h"

namespace npugap::testing {

struct OpCall {
  std::string op_type;
  std::string domain;
  int64_t opset = 17;
  std::map<std::string, ir::Attribute> attributes;
  std::vector<ir::Tensor> inputs;  // an undefined Tensor stands for an omitted optional input
  int num_outputs = 1;
};

inline ir::Attribute IntAttr(int64_t v) { ir::Attribute a; a.kind = ir::Attribute::Kind::kInt; a.i = v; return a; }
inline ir::Attribute FloatAttr(float v) { ir::Attribute a; a.kind = ir::Attribute::Kind::kFloat; a.f = v; return a; }
inline ir::Attribute StringAttr(std::string v) {
  ir::Attribute a; a.kind = ir::Attribute::Kind::kString; a.s = std::move(v); return a;
}
inline ir::Attribute IntsAttr(std::vector<int64_t> v) {
  ir::Attribute a; a.kind = ir::Attribute::Kind::kInts; a.ints = std::move(v); return a;
}
inline ir::Attribute FloatsAttr(std::vector<float> v) {
  ir::Attribute a; a.kind = ir::Attribute::Kind::kFloats; a.floats = std::move(v); return a;
}

// Looks the op up in the default table at call.opset and runs its kernel with 1 thread.
inline Expected<std::vector<ir::Tensor>> RunOp(const OpCall& call) {
  const exec::OpRow* row = exec::OpTable::Default().Find(call.domain, call.op_type, call.opset);
  if (row == nullptr) return Status::Unsupported("no kernel for " + call.op_type);
  ir::Node node;
  node.name = call.op_type + "_test";
  node.op_type = call.op_type;
  node.domain = call.domain;
  node.attributes = call.attributes;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    node.inputs.push_back(call.inputs[i].defined() ? static_cast<int>(i) : ir::kNoValue);
  }
  for (int i = 0; i < call.num_outputs; ++i) node.outputs.push_back(100 + i);
  exec::KernelContext ctx{node};
  ctx.opset = call.opset;
  for (const ir::Tensor& t : call.inputs) ctx.inputs.push_back(t.defined() ? &t : nullptr);
  ctx.outputs.resize(static_cast<size_t>(call.num_outputs));
  NPUGAP_RETURN_IF_ERROR(row->kernel(ctx));
  return std::move(ctx.outputs);
}

}  // namespace npugap::testing
