#include "npugap/onnx/export.h"

#include <onnx/onnx_pb.h>

#include <climits>

#include <fmt/format.h>

#include "npugap/onnx/tensor_proto.h"

namespace npugap::onnx_import {
namespace {

void TypeToProto(const ir::ValueType& type, onnx::TypeProto* proto) {
  auto* tt = proto->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(type.dtype));
  if (!type.dims) return;
  auto* shape = tt->mutable_shape();
  for (const ir::Dim& d : *type.dims) {
    auto* dim = shape->add_dim();
    if (d.is_static()) dim->set_dim_value(d.value);
    else if (!d.symbol.empty()) dim->set_dim_param(d.symbol);
  }
}

void GraphToProto(const ir::Graph& g, onnx::GraphProto* proto);

void AttributeToProto(const std::string& name, const ir::Attribute& a, onnx::AttributeProto* p) {
  using K = ir::Attribute::Kind;
  p->set_name(name);
  switch (a.kind) {
    case K::kFloat: p->set_type(onnx::AttributeProto::FLOAT); p->set_f(a.f); break;
    case K::kInt: p->set_type(onnx::AttributeProto::INT); p->set_i(a.i); break;
    case K::kString: p->set_type(onnx::AttributeProto::STRING); p->set_s(a.s); break;
    case K::kTensor: p->set_type(onnx::AttributeProto::TENSOR); TensorToProto(a.t, "", p->mutable_t()); break;
    case K::kGraph: p->set_type(onnx::AttributeProto::GRAPH); GraphToProto(*a.g, p->mutable_g()); break;
    case K::kFloats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (float f : a.floats) p->add_floats(f);
      break;
    case K::kInts:
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t i : a.ints) p->add_ints(i);
      break;
    case K::kStrings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& s : a.strings) p->add_strings(s);
      break;
    case K::kTensors:
      p->set_type(onnx::AttributeProto::TENSORS);
      for (const auto& t : a.tensors) TensorToProto(t, "", p->add_tensors());
      break;
    case K::kGraphs:
      p->set_type(onnx::AttributeProto::GRAPHS);
      for (const auto& sub : a.graphs) GraphToProto(*sub, p->add_graphs());
      break;
  }
}

void GraphToProto(const ir::Graph& g, onnx::GraphProto* proto) {
  proto->set_name(g.name.empty() ? "graph" : g.name);
  auto name_of = [&](int id) { return id == ir::kNoValue ? std::string() : g.values[static_cast<size_t>(id)].name; };
  for (int id : g.inputs) {
    auto* vi = proto->add_input();
    vi->set_name(name_of(id));
    TypeToProto(g.values[static_cast<size_t>(id)].type, vi->mutable_type());
  }
  // Initializers in value order, so the file is deterministic.
  for (size_t id = 0; id < g.values.size(); ++id) {
    if (const ir::Tensor* t = g.Initializer(static_cast<int>(id))) {
      TensorToProto(*t, g.values[id].name, proto->add_initializer());
    }
  }
  for (const ir::Node& n : g.nodes) {
    auto* np = proto->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op_type);
    if (!n.domain.empty()) np->set_domain(n.domain);
    for (int in : n.inputs) np->add_input(name_of(in));
    for (int out : n.outputs) np->add_output(name_of(out));
    for (const auto& [name, a] : n.attributes) AttributeToProto(name, a, np->add_attribute());
  }
  for (int id : g.outputs) {
    auto* vi = proto->add_output();
    vi->set_name(name_of(id));
    TypeToProto(g.values[static_cast<size_t>(id)].type, vi->mutable_type());
  }
  for (const ir::Value& v : g.values) {
    if (v.producer >= 0 && !v.is_graph_output && v.type.dtype != ir::DType::kUndefined) {
      auto* vi = proto->add_value_info();
      vi->set_name(v.name);
      TypeToProto(v.type, vi->mutable_type());
    }
  }
}

}  // namespace

Expected<std::string> SerializeModel(const ir::Model& model) {
  onnx::ModelProto proto;
  proto.set_ir_version(model.ir_version > 0 ? model.ir_version : 8);
  proto.set_producer_name(model.producer.empty() ? "npugap" : model.producer);
  for (const auto& [domain, version] : model.opsets) {
    auto* op = proto.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  GraphToProto(model.graph, proto.mutable_graph());
  const size_t size = proto.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return Status::Unsupported(fmt::format("model of {} bytes exceeds protobuf's 2 GiB limit", size));
  }
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) return Status::Internal("ONNX serialization failed");
  return bytes;
}

}  // namespace npugap::onnx_import
