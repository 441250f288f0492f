// Builds small ONNX ModelProtos in tests, so every importer path has a model made for it.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace npugap::testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13) {
    proto_.set_ir_version(8);
    auto* op = proto_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    proto_.mutable_graph()->set_name("test");
  }

  // dims: >= 0 fixed, -1 symbolic named `symbol`.
  ModelBuilder& Input(const std::string& name, std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT,
                      const std::string& symbol = "batch") {
    SetType(proto_.mutable_graph()->add_input(), name, dims, elem, symbol);
    return *this;
  }
  ModelBuilder& Output(const std::string& name, std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT) {
    SetType(proto_.mutable_graph()->add_output(), name, dims, elem, "batch");
    return *this;
  }
  ModelBuilder& Node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                     const std::string& name = "", const std::string& domain = "") {
    auto* n = proto_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *this;
  }
  ModelBuilder& FloatInitializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
    auto* t = proto_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  ModelBuilder& Opset(const std::string& domain, int64_t version) {
    auto* op = proto_.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
    return *this;
  }
  onnx::ModelProto& proto() { return proto_; }
  std::string Bytes() const { return proto_.SerializeAsString(); }

 private:
  static void SetType(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims, int elem,
                      const std::string& symbol) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
      else dim->set_dim_param(symbol);
    }
  }
  onnx::ModelProto proto_;
};

}  // namespace npugap::testing
