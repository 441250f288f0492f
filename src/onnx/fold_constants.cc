#include "npugap/onnx/fold_constants.h"

#include "fold_constants.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "attribute_proto.h"
#include "npugap/exec/kernel.h"
#include "npugap/exec/op_table.h"
#include "npugap/onnx/tensor_proto.h"

namespace npugap::onnx_import {

ir::Tensor ShapeOpResult(const ir::Node& node, const ir::Shape& dims) {
  if (node.op_type == "Size") {
    int64_t size = 1;
    for (int64_t d : dims) size *= d;
    return ir::Tensor::FromVector<int64_t>({}, {size});
  }
  const auto rank = static_cast<int64_t>(dims.size());
  auto clamp = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  const int64_t start = clamp(node.GetInt("start", 0));
  const int64_t end = clamp(node.GetInt("end", rank));
  std::vector<int64_t> out;
  for (int64_t i = start; i < end; ++i) out.push_back(dims[static_cast<size_t>(i)]);
  return ir::Tensor::FromVector<int64_t>({static_cast<int64_t>(out.size())}, out);
}

namespace {

bool IsStandard(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

bool HasSubgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.has_g() || a.graphs_size() > 0) return true;
  }
  return false;
}

// Ops whose result is a draw: folding would freeze one. (RandomNormal / RandomUniform have no
// inputs, and nodes without inputs other than Constant are never folded.)
bool IsRandom(std::string_view op) {
  return op == "RandomNormalLike" || op == "RandomUniformLike" || op == "Bernoulli" || op == "Multinomial" ||
         op == "Dropout";
}

std::optional<ir::Shape> StaticDims(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  ir::Shape dims;
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

int64_t Elements(const ir::Shape& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > kMaxFoldElements / d)) return kMaxFoldElements + 1;
    n *= d;
  }
  return n;
}

bool IsShapeOp(const onnx::NodeProto& n) { return n.op_type() == "Shape" || n.op_type() == "Size"; }

// Names read anywhere inside a subgraph (its nodes read enclosing values by name).
void CollectSubgraphReads(const onnx::GraphProto& g, std::unordered_map<std::string, int>& reads) {
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) ++reads[in];
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CollectSubgraphReads(a.g(), reads);
      for (const auto& sub : a.graphs()) CollectSubgraphReads(sub, reads);
    }
  }
}

// The state of one pass: what is known so far and the node being evaluated.
class PassState {
 public:
  PassState(const onnx::GraphProto& g, const std::string& model_dir) : model_dir_(model_dir) {
    for (const auto& vi : g.input()) AddDims(vi);
    for (const auto& vi : g.value_info()) AddDims(vi);
    for (const auto& vi : g.output()) AddDims(vi);
    for (const auto& init : g.initializer()) {
      initializers_[init.name()] = &init;
      dims_[init.name()] = ir::Shape(init.dims().begin(), init.dims().end());
    }
    for (const auto& out : g.output()) graph_outputs_.insert(out.name());
  }

  // The value of `name` when it is known and small; initializers are converted on first use.
  const ir::Tensor* Known(const std::string& name) {
    if (auto it = known_.find(name); it != known_.end()) return &it->second;
    auto init = initializers_.find(name);
    if (init == initializers_.end() || Elements(dims_[name]) > kMaxFoldElements) return nullptr;
    auto tensor = TensorFromProto(*init->second, model_dir_);
    if (!tensor.ok()) return nullptr;  // the conversion after folding reports it, naming the value
    return &(known_[name] = std::move(tensor).value());
  }
  const ir::Shape* Dims(const std::string& name) const {
    auto it = dims_.find(name);
    return it == dims_.end() ? nullptr : &it->second;
  }
  void SetKnown(const std::string& name, ir::Tensor t) { known_[name] = std::move(t); }
  bool IsGraphOutput(const std::string& name) const { return graph_outputs_.count(name) > 0; }
  bool IsInitializer(const std::string& name) const { return initializers_.count(name) > 0; }

 private:
  void AddDims(const onnx::ValueInfoProto& vi) {
    if (auto d = StaticDims(vi.type())) dims_[vi.name()] = *d;
  }
  const std::string& model_dir_;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_map<std::string, ir::Shape> dims_;
  std::unordered_map<std::string, ir::Tensor> known_;
  std::unordered_set<std::string> graph_outputs_;
};

// The node as the executor's kernels read it: attributes converted, value slots present or omitted.
Expected<ir::Node> KernelNode(const onnx::NodeProto& np, const std::string& model_dir) {
  ir::Node node;
  node.name = np.name();
  node.op_type = np.op_type();
  for (const auto& in : np.input()) node.inputs.push_back(in.empty() ? ir::kNoValue : 0);
  for (const auto& out : np.output()) node.outputs.push_back(out.empty() ? ir::kNoValue : 0);
  for (const auto& a : np.attribute()) {
    ir::Attribute attr;
    NPUGAP_ASSIGN_OR_RETURN(bool plain, ConvertPlainAttribute(a, model_dir, attr));
    if (plain) node.attributes.emplace(a.name(), std::move(attr));
  }
  return node;
}

// A Constant's value attribute, when it is a tensor too large to be worth converting.
bool LargeConstant(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.has_t() && Elements(ir::Shape(a.t().dims().begin(), a.t().dims().end())) > kMaxFoldElements)
      return true;
  }
  return false;
}

}  // namespace

int ShapeFolder::Pass(onnx::GraphProto& g) {
  PassState state(g, model_dir_);
  const int n = g.node_size();
  std::vector<uint8_t> fold(static_cast<size_t>(n), 0);
  std::vector<uint8_t> known_node(static_cast<size_t>(n), 0);  // removable once nobody reads it
  std::vector<std::pair<std::string, ir::Tensor>> folded_values;
  const exec::OpTable& table = exec::OpTable::Default();

  for (int i = 0; i < n; ++i) {
    const onnx::NodeProto& np = g.node(i);
    const bool constant = np.op_type() == "Constant";
    if (!IsStandard(np) || HasSubgraph(np) || IsRandom(np.op_type())) continue;
    if ((np.input_size() == 0 && !constant) || (constant && LargeConstant(np))) continue;
    // An Identity of one of the file's weights is how exporters tie weights: folding it would
    // copy the weight (more parameters, more memory), not compute a shape.
    if (np.op_type() == "Identity" && np.input_size() == 1 && state.IsInitializer(np.input(0)) &&
        !made_.count(np.input(0)))
      continue;
    std::vector<const ir::Tensor*> inputs;
    bool ready = true;
    if (IsShapeOp(np)) {
      ready = np.input_size() == 1 && state.Dims(np.input(0)) != nullptr;
    } else {
      for (const auto& in : np.input()) {
        const ir::Tensor* t = in.empty() ? nullptr : state.Known(in);
        ready = ready && (in.empty() || t != nullptr);
        inputs.push_back(t);
      }
    }
    if (!ready) continue;
    auto node = KernelNode(np, model_dir_);
    if (!node.ok()) continue;
    std::vector<ir::Tensor> outputs;
    if (IsShapeOp(np)) {
      outputs.push_back(ShapeOpResult(*node, *state.Dims(np.input(0))));
    } else {
      const exec::OpRow* row = table.Find("", np.op_type(), opset_);
      if (row == nullptr) continue;  // the executor reports an op without a kernel, naming the node
      exec::KernelContext ctx{*node, opset_, inputs, {}};
      ctx.outputs.resize(static_cast<size_t>(np.output_size()));
      if (Status s = row->kernel(ctx); !s.ok()) {
        if (warned_.insert(np.name()).second) {
          warnings_->push_back(
              fmt::format("constant folding stopped at node '{}' ({}): {}; the values it computes "
                          "keep the shapes shape inference gives them",
                          np.name(), np.op_type(), s.message()));
        }
        continue;
      }
      outputs = std::move(ctx.outputs);
    }
    bool small = true, shape_like = true, output_of_graph = false;
    for (int o = 0; o < np.output_size(); ++o) {
      const ir::Tensor& t = outputs[static_cast<size_t>(o)];
      if (np.output(o).empty()) continue;
      small = small && t.defined() && t.numel() <= kMaxFoldElements;
      shape_like = shape_like && t.defined() && t.rank() <= kMaxFoldRank;
      output_of_graph = output_of_graph || state.IsGraphOutput(np.output(o));
    }
    if (!small) continue;
    known_node[static_cast<size_t>(i)] = output_of_graph ? 0 : 1;
    const bool folds = shape_like && !constant && !output_of_graph;
    fold[static_cast<size_t>(i)] = folds ? 1 : 0;
    for (int o = 0; o < np.output_size(); ++o) {
      if (np.output(o).empty()) continue;
      if (folds) folded_values.emplace_back(np.output(o), outputs[static_cast<size_t>(o)]);
      state.SetKnown(np.output(o), std::move(outputs[static_cast<size_t>(o)]));
    }
  }
  int folded = 0;
  for (uint8_t f : fold) folded += f;
  if (folded == 0) return 0;

  // Readers left once the folded nodes are gone; then known helpers nobody reads go too.
  std::unordered_map<std::string, int> reads;
  for (int i = 0; i < n; ++i) {
    if (fold[static_cast<size_t>(i)]) continue;
    for (const auto& in : g.node(i).input()) ++reads[in];
    for (const auto& a : g.node(i).attribute()) {
      if (a.has_g()) CollectSubgraphReads(a.g(), reads);
      for (const auto& sub : a.graphs()) CollectSubgraphReads(sub, reads);
    }
  }
  for (const auto& out : g.output()) ++reads[out.name()];
  std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
  for (int i = n; i-- > 0;) {
    const onnx::NodeProto& np = g.node(i);
    if (fold[static_cast<size_t>(i)]) {
      keep[static_cast<size_t>(i)] = 0;
      continue;
    }
    if (!known_node[static_cast<size_t>(i)]) continue;
    bool read = false;
    for (const auto& out : np.output()) read = read || (!out.empty() && reads[out] > 0);
    if (read) continue;
    keep[static_cast<size_t>(i)] = 0;
    ++nodes_removed_;
    for (const auto& in : np.input()) --reads[in];
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < n; ++i) {
    if (keep[static_cast<size_t>(i)]) nodes.Add()->Swap(g.mutable_node(i));
  }
  g.mutable_node()->Swap(&nodes);
  // Only the folded values something still reads become initializers (a Shape -> Gather -> Concat
  // chain leaves one: the Concat's).
  for (auto& [name, tensor] : folded_values) {
    if (reads[name] == 0) continue;
    TensorToProto(tensor, name, g.add_initializer());
    made_.insert(name);
  }
  nodes_folded_ += folded;
  return folded;
}

}  // namespace npugap::onnx_import
