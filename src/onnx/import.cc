#include "npugap/onnx/import.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "npugap/exec/op_table.h"
#include "npugap/onnx/tensor_proto.h"
#include "attribute_proto.h"
#include "fold_constants.h"

namespace npugap::onnx_import {
namespace fs = std::filesystem;

namespace {

std::string FirstLine(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string NodeLabel(const onnx::NodeProto& n, int index) {
  return n.name().empty() ? fmt::format("{}_{}", n.op_type(), index) : n.name();
}

// ---- shape binding ---------------------------------------------------------

Status BindInputShapes(onnx::GraphProto& graph, const ImportOptions& options) {
  std::unordered_set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::vector<onnx::ValueInfoProto*> inputs;
  std::string names;
  for (auto& in : *graph.mutable_input()) {
    if (initializers.count(in.name())) continue;
    inputs.push_back(&in);
    names += (names.empty() ? "" : ", ") + in.name();
  }
  for (const auto& [name, shape] : options.input_shapes) {
    onnx::ValueInfoProto* target = nullptr;
    for (auto* in : inputs) {
      if (in->name() == name) target = in;
    }
    if (!target) return Status::InvalidArgument(fmt::format("--shape names no input '{}' (inputs: {})", name, names));
    NPUGAP_RETURN_IF_ERROR(ir::CheckedNumel(shape).status().WithContext(fmt::format("--shape {}", name)));
    auto* tensor_type = target->mutable_type()->mutable_tensor_type();
    auto* proto_shape = tensor_type->mutable_shape();
    if (tensor_type->has_shape() && proto_shape->dim_size() != 0 && proto_shape->dim_size() != static_cast<int>(shape.size())) {
      return Status::InvalidArgument(fmt::format("--shape {}: rank {} but the model declares rank {}", name,
                                                 shape.size(), proto_shape->dim_size()));
    }
    proto_shape->clear_dim();
    for (int64_t d : shape) proto_shape->add_dim()->set_dim_value(d);
  }
  if (options.batch) {
    if (*options.batch <= 0) return Status::InvalidArgument(fmt::format("--batch {}: must be positive", *options.batch));
    for (auto* in : inputs) {
      if (!in->type().has_tensor_type() || !in->type().tensor_type().has_shape()) continue;
      auto* shape = in->mutable_type()->mutable_tensor_type()->mutable_shape();
      if (shape->dim_size() > 0 && !shape->dim(0).has_dim_value()) shape->mutable_dim(0)->set_dim_value(*options.batch);
    }
  }
  return Status::Ok();
}

// ---- structure: every input defined, topological order, no cycles ----------

Status SortTopologically(onnx::GraphProto& graph, const std::unordered_set<std::string>& outer,
                         const std::string& where) {
  std::unordered_set<std::string> available(outer.begin(), outer.end());
  for (const auto& in : graph.input()) available.insert(in.name());
  for (const auto& init : graph.initializer()) available.insert(init.name());
  std::unordered_map<std::string, int> producer;
  const int n = graph.node_size();
  for (int i = 0; i < n; ++i) {
    for (const auto& out : graph.node(i).output()) {
      if (!out.empty()) producer[out] = i;
    }
  }
  // Kahn's algorithm, always taking the lowest-index ready node so sorted files keep their order.
  std::vector<int> pending(static_cast<size_t>(n), 0);
  std::vector<std::vector<int>> users(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto& node = graph.node(i);
    std::unordered_set<int> deps;
    auto need = [&](const std::string& name) -> Status {
      if (name.empty() || available.count(name)) return Status::Ok();
      auto it = producer.find(name);
      if (it == producer.end()) {
        return Status::InvalidArgument(fmt::format(
            "{}node '{}' ({}): input '{}' is not produced by any node, graph input or initializer", where,
            NodeLabel(node, i), node.op_type(), name));
      }
      if (it->second != i) deps.insert(it->second);
      else return Status::InvalidArgument(fmt::format("{}node '{}' ({}) consumes its own output '{}' (cycle)", where,
                                                       NodeLabel(node, i), node.op_type(), name));
      return Status::Ok();
    };
    for (const auto& in : node.input()) NPUGAP_RETURN_IF_ERROR(need(in));
    // Values a subgraph reads from this scope are dependencies of the node that owns it.
    for (const auto& attr : node.attribute()) {
      std::vector<const onnx::GraphProto*> subs;
      if (attr.has_g()) subs.push_back(&attr.g());
      for (const auto& g : attr.graphs()) subs.push_back(&g);
      for (const auto* sub : subs) {
        for (const auto& sn : sub->node()) {
          for (const auto& in : sn.input()) {
            auto it = producer.find(in);
            if (it != producer.end() && it->second != i) deps.insert(it->second);
          }
        }
      }
    }
    pending[static_cast<size_t>(i)] = static_cast<int>(deps.size());
    for (int d : deps) users[static_cast<size_t>(d)].push_back(i);
  }
  std::vector<int> order;
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i) {
    if (pending[static_cast<size_t>(i)] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    auto min_it = std::min_element(ready.begin(), ready.end());
    const int i = *min_it;
    ready.erase(min_it);
    order.push_back(i);
    for (int u : users[static_cast<size_t>(i)]) {
      if (--pending[static_cast<size_t>(u)] == 0) ready.push_back(u);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (pending[static_cast<size_t>(i)] > 0) {
        return Status::InvalidArgument(fmt::format("{}graph has a cycle through node '{}' ({})", where,
                                                   NodeLabel(graph.node(i), i), graph.node(i).op_type()));
      }
    }
  }
  bool sorted = true;
  for (int i = 0; i < n; ++i) sorted = sorted && order[static_cast<size_t>(i)] == i;
  if (!sorted) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (int i : order) *nodes.Add() = graph.node(i);
    graph.mutable_node()->Swap(&nodes);
  }
  return Status::Ok();
}

// ---- proto -> IR ------------------------------------------------------------

ir::ValueType ConvertType(const onnx::TypeProto& type) {
  ir::ValueType vt;
  if (!type.has_tensor_type()) {
    vt.is_tensor = false;
    return vt;
  }
  const auto& tt = type.tensor_type();
  if (ir::IsKnownDType(tt.elem_type())) vt.dtype = static_cast<ir::DType>(tt.elem_type());
  if (tt.has_shape()) {
    std::vector<ir::Dim> dims;
    for (const auto& d : tt.shape().dim()) {
      dims.push_back(d.has_dim_value() ? ir::Dim::Static(d.dim_value()) : ir::Dim::Symbolic(d.dim_param()));
    }
    vt.dims = std::move(dims);
  }
  return vt;
}

class GraphConverter {
 public:
  GraphConverter(std::string model_dir, std::vector<std::string>* warnings)
      : model_dir_(std::move(model_dir)), warnings_(warnings) {}

  Status Convert(const onnx::GraphProto& proto, const std::unordered_set<std::string>& outer, ir::Graph& g) {
    g.name = proto.name();
    std::unordered_map<std::string, const onnx::TypeProto*> types;
    for (const auto& vi : proto.value_info()) types[vi.name()] = &vi.type();
    for (const auto& vi : proto.output()) types[vi.name()] = &vi.type();
    for (const auto& vi : proto.input()) types[vi.name()] = &vi.type();

    for (const auto& init : proto.initializer()) {
      auto tensor = TensorFromProto(init, model_dir_);
      if (!tensor.ok()) return tensor.status();
      ir::Value v;
      v.name = init.name();
      v.is_initializer = true;
      v.type.dtype = tensor->dtype();
      std::vector<ir::Dim> dims;
      for (int64_t d : tensor->shape()) dims.push_back(ir::Dim::Static(d));
      v.type.dims = std::move(dims);
      if (g.FindValue(v.name) >= 0) return Status::InvalidArgument(fmt::format("initializer '{}' defined twice", v.name));
      const int id = g.AddValue(std::move(v));
      g.initializers.emplace(id, std::move(tensor).value());
    }
    for (const auto& in : proto.input()) {
      const int existing = g.FindValue(in.name());
      if (existing >= 0) continue;  // an initializer listed as input (IR < 4): a constant, not a required input
      ir::Value v;
      v.name = in.name();
      v.type = ConvertType(in.type());
      v.is_graph_input = true;
      g.inputs.push_back(g.AddValue(std::move(v)));
    }
    for (int i = 0; i < proto.node_size(); ++i) {
      NPUGAP_RETURN_IF_ERROR(ConvertNode(proto.node(i), i, outer, types, g));
    }
    for (const auto& out : proto.output()) {
      int id = g.FindValue(out.name());
      if (id < 0) {
        if (!outer.count(out.name())) {
          return Status::InvalidArgument(fmt::format("graph output '{}' is not produced by any node", out.name()));
        }
        id = AddOuter(out.name(), g);
      }
      g.values[static_cast<size_t>(id)].is_graph_output = true;
      if (g.values[static_cast<size_t>(id)].type.dtype == ir::DType::kUndefined) {
        g.values[static_cast<size_t>(id)].type = ConvertType(out.type());
      }
      g.outputs.push_back(id);
    }
    g.RebuildLinks();
    for (const ir::Value& v : g.values) {
      if (auto shape = v.type.StaticShape()) {
        auto numel = ir::CheckedNumel(*shape);
        if (!numel.ok()) return numel.status().WithContext(fmt::format("value '{}'", v.name));
        if (*numel > ir::kMaxTensorBytes / std::max<int64_t>(1, static_cast<int64_t>(ir::DTypeSize(v.type.dtype)))) {
          return Status::InvalidArgument(fmt::format("value '{}' of shape {} needs more than {} GiB", v.name,
                                                     ir::ShapeToString(*shape), ir::kMaxTensorBytes >> 30));
        }
      }
    }
    return Status::Ok();
  }

 private:
  int AddOuter(const std::string& name, ir::Graph& g) {
    ir::Value v;
    v.name = name;
    v.from_outer_scope = true;
    const int id = g.AddValue(std::move(v));
    g.outer_values.push_back(id);
    return id;
  }

  Status ConvertNode(const onnx::NodeProto& np, int index, const std::unordered_set<std::string>& outer,
                     const std::unordered_map<std::string, const onnx::TypeProto*>& types, ir::Graph& g) {
    ir::Node node;
    node.name = NodeLabel(np, index);
    node.op_type = np.op_type();
    node.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    for (const auto& in : np.input()) {
      if (in.empty()) {
        node.inputs.push_back(ir::kNoValue);
        continue;
      }
      int id = g.FindValue(in);
      if (id < 0) {
        if (!outer.count(in)) {
          return Status::InvalidArgument(fmt::format("node '{}' ({}): input '{}' is not defined", node.name,
                                                     node.op_type, in));
        }
        id = AddOuter(in, g);
      }
      node.inputs.push_back(id);
    }
    // Names visible to this node's subgraphs: everything in this scope so far plus the outer scopes.
    std::unordered_set<std::string> visible;
    bool has_subgraph = false;
    for (const auto& a : np.attribute()) has_subgraph = has_subgraph || a.has_g() || a.graphs_size() > 0;
    if (has_subgraph) {
      visible = outer;
      for (const ir::Value& v : g.values) visible.insert(v.name);
    }
    for (const auto& a : np.attribute()) {
      ir::Attribute attr;
      using K = ir::Attribute::Kind;
      if (a.type() == onnx::AttributeProto::GRAPH) {
        attr.kind = K::kGraph;
        attr.g = std::make_shared<ir::Graph>();
        NPUGAP_RETURN_IF_ERROR(Convert(a.g(), visible, *attr.g).WithContext(
            fmt::format("node '{}' subgraph '{}'", node.name, a.name())));
      } else if (a.type() == onnx::AttributeProto::GRAPHS) {
        attr.kind = K::kGraphs;
        for (const auto& gp : a.graphs()) {
          auto sub = std::make_shared<ir::Graph>();
          NPUGAP_RETURN_IF_ERROR(Convert(gp, visible, *sub).WithContext(
              fmt::format("node '{}' subgraph '{}'", node.name, a.name())));
          attr.graphs.push_back(std::move(sub));
        }
      } else {
        auto plain = ConvertPlainAttribute(a, model_dir_, attr);
        if (!plain.ok()) return plain.status().WithContext(fmt::format("node '{}' attribute '{}'", node.name, a.name()));
        if (!*plain) {
          // Sparse tensors and type protos: left out; a kernel that needs them reports it.
          warnings_->push_back(fmt::format("node '{}': attribute '{}' of an unsupported kind ignored", node.name, a.name()));
          continue;
        }
      }
      node.attributes.emplace(a.name(), std::move(attr));
    }
    for (const auto& out : np.output()) {
      if (out.empty()) {
        node.outputs.push_back(ir::kNoValue);
        continue;
      }
      if (g.FindValue(out) >= 0) {
        return Status::InvalidArgument(fmt::format("node '{}' ({}): output '{}' is already defined", node.name,
                                                   node.op_type, out));
      }
      ir::Value v;
      v.name = out;
      auto it = types.find(out);
      if (it != types.end()) v.type = ConvertType(*it->second);
      node.outputs.push_back(g.AddValue(std::move(v)));
    }
    g.nodes.push_back(std::move(node));
    return Status::Ok();
  }

  std::string model_dir_;
  std::vector<std::string>* warnings_;
};

Status CheckModel(const onnx::ModelProto& model, const std::string& model_dir) {
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const auto& op : model.opset_import()) opsets[op.domain()] = static_cast<int>(op.version());
  ctx.set_opset_imports(opsets);
  ctx.set_model_dir(model_dir);
  onnx::checker::LexicalScopeContext lex;
  try {
    onnx::checker::check_graph(model.graph(), ctx, lex);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(fmt::format("ONNX checker: {}", FirstLine(e.what())));
  }
  return Status::Ok();
}

}  // namespace

Expected<ir::Shape> ParseShape(const std::string& text) {
  ir::Shape shape;
  std::string token;
  std::stringstream ss(text);
  const char sep = text.find(',') != std::string::npos ? ',' : 'x';
  while (std::getline(ss, token, sep)) {
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(token, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (token.empty() || used != token.size() || v < 0) {
      return Status::InvalidArgument(fmt::format("shape '{}': '{}' is not a dimension", text, token));
    }
    shape.push_back(v);
  }
  if (shape.empty()) return Status::InvalidArgument(fmt::format("shape '{}' is empty", text));
  return shape;
}

Expected<std::pair<std::string, ir::Shape>> ParseShapeBinding(const std::string& text) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument(fmt::format("--shape '{}': expected NAME=DIMS, e.g. input=1x3x224x224", text));
  }
  NPUGAP_ASSIGN_OR_RETURN(ir::Shape shape, ParseShape(text.substr(eq + 1)));
  return std::make_pair(text.substr(0, eq), shape);
}

namespace {

// Parses a whole ModelProto from `input` (no 64 MiB default limit; 2 GiB is protobuf's own).
Status ParseModelProto(google::protobuf::io::ZeroCopyInputStream& input, onnx::ModelProto& proto,
                       const std::string& display_name) {
  google::protobuf::io::CodedInputStream coded(&input);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!proto.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    return Status::InvalidArgument(
        fmt::format("{}: not a valid ONNX model (protobuf parse failed: truncated or not an .onnx file)", display_name));
  }
  return Status::Ok();
}

// libonnx shape inference with data propagation, so Shape -> Gather -> Concat -> Reshape chains
// resolve once inputs are bound. A failure is a warning: the values it did not reach keep
// symbolic dims, and the analyses that need them say which.
void InferShapesOrWarn(onnx::ModelProto& proto, std::vector<std::string>& warnings) {
  try {
    onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception& e) {
    warnings.push_back(fmt::format("shape inference stopped: {}", FirstLine(e.what())));
  }
}

// Folds the shape sub-graphs (onnx/fold_constants.h) and re-infers shapes after each pass that
// changed the graph, until a pass folds nothing. Each pass removes nodes, so this ends. Unnamed
// nodes are named first ("<op_type>_<index>" in the file's order), so that the names in the IR
// and its messages are those of the unfolded import. Returns the number of nodes folded.
int FoldShapeSubgraphs(onnx::ModelProto& proto, const std::string& model_dir, std::vector<std::string>& warnings) {
  onnx::GraphProto& graph = *proto.mutable_graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    if (graph.node(i).name().empty()) graph.mutable_node(i)->set_name(NodeLabel(graph.node(i), i));
  }
  int64_t opset = 0;
  for (const auto& op : proto.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = op.version();
  }
  ShapeFolder folder(model_dir, opset, &warnings);
  while (folder.Pass(graph) > 0) {
    // Inferred entries that are not static are dropped so that the new inference can fill them,
    // and entries of values that are now initializers or gone are dropped with them.
    std::unordered_set<std::string> produced;
    for (const auto& n : graph.node()) produced.insert(n.output().begin(), n.output().end());
    auto* infos = graph.mutable_value_info();
    for (int i = infos->size(); i-- > 0;) {
      const auto& vi = infos->Get(i);
      const bool dynamic = !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape() ||
                           std::any_of(vi.type().tensor_type().shape().dim().begin(),
                                       vi.type().tensor_type().shape().dim().end(),
                                       [](const auto& d) { return !d.has_dim_value(); });
      if (!produced.count(vi.name()) || (dynamic && vi.type().has_tensor_type())) infos->DeleteSubrange(i, 1);
    }
    InferShapesOrWarn(proto, warnings);
  }
  return folder.nodes_folded();
}

// ModelProto -> IR. The proto is dropped by the caller right after, so at most two copies of the
// weights (proto and IR) are alive at once.
Expected<ir::Model> ImportProto(onnx::ModelProto& proto, const std::string& model_dir,
                                const std::string& display_name, const ImportOptions& options) {
  if (!proto.has_graph() || (proto.graph().node_size() == 0 && proto.graph().output_size() == 0)) {
    return Status::InvalidArgument(fmt::format("{}: not a valid ONNX model (no graph)", display_name));
  }
  ir::Model model;
  model.path = display_name;
  model.ir_version = proto.ir_version();
  model.producer = proto.producer_name();
  for (const auto& op : proto.opset_import()) {
    const std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    model.opsets[domain] = op.version();
  }
  if (proto.opset_import_size() == 0 && proto.ir_version() >= 3) {
    return Status::InvalidArgument(fmt::format("{}: field opset_import is empty", display_name));
  }
  const int64_t opset = model.DefaultOpset();
  if (opset != 0 && (opset < exec::kMinSupportedOpset || opset > exec::kMaxSupportedOpset)) {
    return Status::InvalidArgument(fmt::format("{}: opset {} of domain ai.onnx is outside the supported range {}..{}",
                                               display_name, opset, exec::kMinSupportedOpset,
                                               exec::kMaxSupportedOpset));
  }
  auto context = [&](const Status& s) { return s.WithContext(display_name); };
  if (auto s = BindInputShapes(*proto.mutable_graph(), options); !s.ok()) return context(s);
  if (auto s = SortTopologically(*proto.mutable_graph(), {}, ""); !s.ok()) return context(s);
  if (options.run_checker) {
    if (auto s = CheckModel(proto, model_dir); !s.ok()) return context(s);
  }
  InferShapesOrWarn(proto, model.warnings);
  const int folded = options.fold_shape_constants ? FoldShapeSubgraphs(proto, model_dir, model.warnings) : 0;
  if (options.folded_nodes != nullptr) *options.folded_nodes = folded;
  GraphConverter converter(model_dir, &model.warnings);
  if (auto s = converter.Convert(proto.graph(), {}, model.graph); !s.ok()) return context(s);
  return model;
}

}  // namespace

Expected<ir::Model> LoadModelFromBytes(const std::string& bytes, const std::string& model_dir,
                                       const std::string& display_name, const ImportOptions& options) {
  onnx::ModelProto proto;
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Status::InvalidArgument(
        fmt::format("{}: not a valid ONNX model (protobuf parse failed: truncated or not an .onnx file)", display_name));
  }
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  NPUGAP_RETURN_IF_ERROR(ParseModelProto(raw, proto, display_name));
  return ImportProto(proto, model_dir, display_name, options);
}

Expected<ir::Model> LoadModel(const std::string& path, const ImportOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Status::NotFound(fmt::format("{}: no such file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path));
  // Parsed straight from the file: holding the file's bytes as well would add a third copy of
  // the weights to the peak (vit_b_16: 1008 MB peak RSS).
  onnx::ModelProto proto;
  {
    google::protobuf::io::IstreamInputStream stream(&in);
    NPUGAP_RETURN_IF_ERROR(ParseModelProto(stream, proto, path));
  }
  return ImportProto(proto, fs::path(path).parent_path().string(), path, options);
}

}  // namespace npugap::onnx_import
