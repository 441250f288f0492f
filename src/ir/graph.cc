#include "npugap/ir/graph.h"

#include <cassert>

namespace npugap::ir {

std::optional<Shape> ValueType::StaticShape() const {
  if (!dims) return std::nullopt;
  Shape s;
  s.reserve(dims->size());
  for (const Dim& d : *dims) {
    if (!d.is_static()) return std::nullopt;
    s.push_back(d.value);
  }
  return s;
}

std::string ValueType::ToString() const {
  std::string s(DTypeName(dtype));
  if (!dims) return s + "[?]";
  s += '[';
  for (size_t i = 0; i < dims->size(); ++i) {
    if (i) s += 'x';
    const Dim& d = (*dims)[i];
    s += d.is_static() ? std::to_string(d.value) : (d.symbol.empty() ? "?" : d.symbol);
  }
  return s + ']';
}

const Attribute* Node::FindAttribute(const std::string& attr) const {
  auto it = attributes.find(attr);
  return it == attributes.end() ? nullptr : &it->second;
}

int64_t Node::GetInt(const std::string& attr, int64_t fallback) const {
  const Attribute* a = FindAttribute(attr);
  return a && a->kind == Attribute::Kind::kInt ? a->i : fallback;
}

float Node::GetFloat(const std::string& attr, float fallback) const {
  const Attribute* a = FindAttribute(attr);
  return a && a->kind == Attribute::Kind::kFloat ? a->f : fallback;
}

std::string Node::GetString(const std::string& attr, const std::string& fallback) const {
  const Attribute* a = FindAttribute(attr);
  return a && a->kind == Attribute::Kind::kString ? a->s : fallback;
}

std::vector<int64_t> Node::GetInts(const std::string& attr, std::vector<int64_t> fallback) const {
  const Attribute* a = FindAttribute(attr);
  return a && a->kind == Attribute::Kind::kInts ? a->ints : fallback;
}

std::vector<float> Node::GetFloats(const std::string& attr, std::vector<float> fallback) const {
  const Attribute* a = FindAttribute(attr);
  return a && a->kind == Attribute::Kind::kFloats ? a->floats : fallback;
}

const Graph* Node::GetGraph(const std::string& attr) const {
  const Attribute* a = FindAttribute(attr);
  return a && a->kind == Attribute::Kind::kGraph ? a->g.get() : nullptr;
}

int Graph::FindValue(const std::string& value_name) const {
  auto it = index_.find(value_name);
  return it == index_.end() ? -1 : it->second;
}

int Graph::AddValue(Value v) {
  assert(index_.find(v.name) == index_.end());
  const int id = static_cast<int>(values.size());
  index_.emplace(v.name, id);
  values.push_back(std::move(v));
  return id;
}

const Tensor* Graph::Initializer(int value) const {
  auto it = initializers.find(value);
  return it == initializers.end() ? nullptr : &it->second;
}

void Graph::RebuildLinks() {
  for (Value& v : values) {
    v.producer = -1;
    v.consumers.clear();
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (int in : nodes[n].inputs) {
      if (in != kNoValue) values[static_cast<size_t>(in)].consumers.push_back(static_cast<int>(n));
    }
    for (int out : nodes[n].outputs) {
      if (out != kNoValue) values[static_cast<size_t>(out)].producer = static_cast<int>(n);
    }
  }
}

int64_t Model::DefaultOpset() const {
  for (const char* d : {"", "ai.onnx"}) {
    auto it = opsets.find(d);
    if (it != opsets.end()) return it->second;
  }
  return 0;
}

}  // namespace npugap::ir
