// Runs one kernel from the op table on tensors built in the test, without a model file (the op
// tests and bench/kernels_bench.cc), and builds tensors from values and values from tensors. The
// gtest checks on top of it are in op_test_expect.h.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
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

inline ir::Attribute IntAttr(int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  return a;
}
inline ir::Attribute FloatAttr(float v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloat;
  a.f = v;
  return a;
}
inline ir::Attribute StringAttr(std::string v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kString;
  a.s = std::move(v);
  return a;
}
inline ir::Attribute IntsAttr(std::vector<int64_t> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
inline ir::Attribute FloatsAttr(std::vector<float> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloats;
  a.floats = std::move(v);
  return a;
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

// ---- tensors from values ----------------------------------------------------------------------
template <typename T>
ir::Tensor Make(ir::Shape shape, std::vector<T> values) {
  return ir::Tensor::FromVector<T>(std::move(shape), values);
}
inline ir::Tensor F32(ir::Shape shape, std::vector<float> values) {
  return Make<float>(std::move(shape), values);
}
inline ir::Tensor I64(ir::Shape shape, std::vector<int64_t> values) {
  return Make<int64_t>(std::move(shape), values);
}
// Bool tensors from 0 / 1 ints (std::vector<bool> has no data()).
// A test that gives more (or fewer) values than its shape holds is wrong: stop it loudly, in
// Release builds too (Tensor's own check is an assert).
inline void RequireValueCount(const ir::Tensor& t, size_t values, const char* helper) {
  if (static_cast<int64_t>(values) == t.numel()) return;
  std::fprintf(stderr, "%s: %zu values for a tensor of %lld elements\n", helper, values,
               static_cast<long long>(t.numel()));
  std::abort();
}
inline ir::Tensor Bools(ir::Shape shape, std::vector<int> values) {
  ir::Tensor t = ir::Tensor::Empty(ir::DType::kBool, std::move(shape));
  RequireValueCount(t, values.size(), "Bools");
  for (size_t i = 0; i < values.size(); ++i) t.data<uint8_t>()[i] = values[i] ? 1 : 0;
  return t;
}
inline ir::Tensor Strings(ir::Shape shape, std::vector<std::string> values) {
  ir::Tensor t = ir::Tensor::Empty(ir::DType::kString, std::move(shape));
  RequireValueCount(t, values.size(), "Strings");
  t.strings() = std::move(values);
  return t;
}

// ---- values from tensors ----------------------------------------------------------------------
template <typename T>
std::vector<T> Values(const ir::Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}
inline std::vector<int> BoolValues(const ir::Tensor& t) {
  std::vector<int> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.data<uint8_t>()[i] != 0);
  return v;
}

}  // namespace npugap::testing
