// npugap's model IR. Every analysis (compatibility, precision, memory, performance) and the
// executor read this, never the ONNX protobuf. Values are referred to by index; nodes are kept
// in topological order; subgraphs of If/Loop/Scan are Graphs owned by their node's attributes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "npugap/ir/dtype.h"
#include "npugap/ir/tensor.h"

namespace npugap::ir {

// One dimension: a known size, or a symbol ("batch", "seq") / unknown (empty symbol).
struct Dim {
  int64_t value = -1;
  std::string symbol;
  bool is_static() const { return value >= 0; }
  static Dim Static(int64_t v) { return {v, {}}; }
  static Dim Symbolic(std::string s) { return {-1, std::move(s)}; }
};

// A value's type as far as it is known before running: dtype and (maybe) shape.
struct ValueType {
  DType dtype = DType::kUndefined;
  std::optional<std::vector<Dim>> dims;  // nullopt: rank unknown
  bool is_tensor = true;                 // false for sequence / optional / map values
  // The static shape when every dim is known.
  std::optional<Shape> StaticShape() const;
  std::string ToString() const;  // "float32[1x3xNx224]"
};

inline constexpr int kNoValue = -1;  // an omitted optional input / output

struct Value {
  std::string name;
  ValueType type;
  int producer = -1;           // node index, -1 for graph inputs, initializers, outer values
  std::vector<int> consumers;  // node indices, in order
  bool is_initializer = false;
  bool is_graph_input = false;
  bool is_graph_output = false;
  bool from_outer_scope = false;  // a subgraph's reference to an enclosing graph's value
};

class Graph;

struct Attribute {
  enum class Kind { kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts, kStrings, kTensors, kGraphs };
  Kind kind = Kind::kInt;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
};

struct Node {
  std::string name;     // may be empty in the file; the importer names it "<op_type>_<index>"
  std::string op_type;
  std::string domain;   // "" for the default ONNX domain ("ai.onnx")
  std::vector<int> inputs;   // value indices, kNoValue for an omitted optional input
  std::vector<int> outputs;  // value indices, kNoValue for an omitted optional output
  std::map<std::string, Attribute> attributes;

  const Attribute* FindAttribute(const std::string& attr) const;
  int64_t GetInt(const std::string& attr, int64_t fallback) const;
  float GetFloat(const std::string& attr, float fallback) const;
  std::string GetString(const std::string& attr, const std::string& fallback) const;
  std::vector<int64_t> GetInts(const std::string& attr, std::vector<int64_t> fallback = {}) const;
  std::vector<float> GetFloats(const std::string& attr, std::vector<float> fallback = {}) const;
  const Graph* GetGraph(const std::string& attr) const;
  bool HasInput(size_t i) const { return i < inputs.size() && inputs[i] != kNoValue; }
};

class Graph {
 public:
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;  // topological order
  std::vector<int> inputs;   // graph inputs that are not initializers, in file order
  std::vector<int> outputs;
  std::unordered_map<int, Tensor> initializers;  // by value index
  std::vector<int> outer_values;  // values this graph reads from enclosing graphs

  int FindValue(const std::string& value_name) const;  // -1 when absent
  int AddValue(Value v);  // returns its index; the name must be new
  const Tensor* Initializer(int value) const;
  // Re-derives producer / consumer links from nodes (after edits).
  void RebuildLinks();

 private:
  std::unordered_map<std::string, int> index_;
};

struct Model {
  Graph graph;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  int64_t ir_version = 0;
  std::string producer;
  std::string path;  // the file it was loaded from, for messages
  std::vector<std::string> warnings;  // import problems that did not stop the import

  int64_t DefaultOpset() const;  // opset of the ai.onnx domain
};

}  // namespace npugap::ir
