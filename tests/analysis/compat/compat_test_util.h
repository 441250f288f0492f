// Small models for the compatibility tests, built as ONNX protos and imported like a file.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../onnx/model_builder.h"
#include "npugap/analysis/compat/compat.h"
#include "npugap/onnx/import.h"
#include "npugap/target/target.h"

namespace npugap::testing {

inline onnx::NodeProto* LastNode(ModelBuilder& b) {
  auto* nodes = b.proto().mutable_graph()->mutable_node();
  return nodes->Mutable(nodes->size() - 1);
}
inline void IntsAttr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}
inline void StringAttr(onnx::NodeProto* n, const std::string& name, const std::string& value) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}
inline void Int64Initializer(ModelBuilder& b, const std::string& name, const std::vector<int64_t>& values) {
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

inline ir::Model Import(const ModelBuilder& b, const onnx_import::ImportOptions& options = {}) {
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "test.onnx", options);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

inline const target::Target& Target(const std::string& name) {
  static std::map<std::string, target::Target> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    auto t = target::LoadTarget(name);
    EXPECT_TRUE(t.ok()) << t.status().message();
    it = cache.emplace(name, t.ok() ? std::move(t).value() : target::Target{}).first;
  }
  return it->second;
}

inline compat::CheckResult Check(const ir::Model& m, const std::string& target = "ascend910b2",
                                 const compat::CheckOptions& options = {}) {
  auto r = compat::CheckModel(m, Target(target), options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : compat::CheckResult{};
}

// A copy: callers often pass a temporary result.
inline compat::NodeResult NodeNamed(const compat::CheckResult& r, const std::string& name) {
  for (const auto& n : r.nodes) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return {};
}

}  // namespace npugap::testing
