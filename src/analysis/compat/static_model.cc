#include "npugap/analysis/compat/static_model.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>

#include "npugap/analysis/compat/value_flow.h"
#include "npugap/exec/kernel.h"
#include "npugap/exec/op_table.h"
#include "npugap/onnx/export.h"
#include "npugap/onnx/fold_constants.h"
#include "npugap/onnx/import.h"

namespace npugap::compat {
namespace {

bool IsShapeOp(const ir::Node& n) {
  return (n.domain.empty() || n.domain == "ai.onnx") && (n.op_type == "Shape" || n.op_type == "Size");
}

// Runs one node's kernel on tensors already known.
Status EvaluateNode(const ir::Graph& g, const ir::Node& n, int64_t opset,
                    std::unordered_map<int, ir::Tensor>& known) {
  if (IsShapeOp(n)) {
    known[n.outputs[0]] =
        onnx_import::ShapeOpResult(n, *g.values[static_cast<size_t>(n.inputs[0])].type.StaticShape());
    return Status::Ok();
  }
  const exec::OpRow* row = exec::OpTable::Default().Find(n.domain, n.op_type, opset);
  if (row == nullptr)
    return Status::Unsupported(fmt::format("node '{}' ({}): no kernel to fold it", n.name, n.op_type));
  exec::KernelContext ctx{n, opset, {}, {}};
  for (int in : n.inputs) ctx.inputs.push_back(in == ir::kNoValue ? nullptr : &known.at(in));
  ctx.outputs.resize(n.outputs.size());
  NPUGAP_RETURN_IF_ERROR(
      row->kernel(ctx).WithContext(fmt::format("folding node '{}' ({})", n.name, n.op_type)));
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    if (n.outputs[o] != ir::kNoValue) known[n.outputs[o]] = std::move(ctx.outputs[o]);
  }
  return Status::Ok();
}

bool ProducesGraphOutput(const ir::Graph& g, const ir::Node& n) {
  for (int out : n.outputs) {
    if (out != ir::kNoValue && g.values[static_cast<size_t>(out)].is_graph_output) return true;
  }
  return false;
}

// One folding pass over the value flow of `model` as imported.
Expected<ir::Model> FoldOnce(const ir::Model& model, StaticModelStats& stats) {
  ir::Model out = model;
  ir::Graph& g = out.graph;
  for (int id : g.inputs) {
    const ir::Value& v = g.values[static_cast<size_t>(id)];
    if (!v.type.StaticShape()) {
      return Status::InvalidArgument(fmt::format(
          "input '{}' is {}: bind it with --shape {}=DIMS or --batch N", v.name, v.type.ToString(), v.name));
    }
  }
  const ValueFlow flow = AnalyzeValueFlow(g);
  const int64_t opset = out.DefaultOpset();

  // The nodes to fold: known nodes computing shapes, and the known nodes they read from.
  std::vector<uint8_t> fold(g.nodes.size(), 0);
  std::vector<uint8_t> needed(g.nodes.size(), 0);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const ir::Node& n = g.nodes[i];
    if (!flow.foldable[i]) continue;
    bool shape_out = false;
    for (int o : n.outputs)
      shape_out = shape_out || (o != ir::kNoValue && flow.shape_comp[static_cast<size_t>(o)]);
    if (shape_out && !ProducesGraphOutput(g, n)) fold[i] = 1;
    if (!fold[i] && !needed[i]) continue;
    needed[i] = 1;
    if (IsShapeOp(n)) continue;  // reads dims only
    for (int in : n.inputs) {
      if (in == ir::kNoValue) continue;
      const int p = g.values[static_cast<size_t>(in)].producer;
      if (p >= 0) needed[static_cast<size_t>(p)] = 1;
    }
  }
  std::unordered_map<int, ir::Tensor> known(g.initializers.begin(), g.initializers.end());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (needed[i]) NPUGAP_RETURN_IF_ERROR(EvaluateNode(g, g.nodes[i], opset, known));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!fold[i]) continue;
    ++stats.nodes_folded;
    for (int o : g.nodes[i].outputs) {
      if (o == ir::kNoValue) continue;
      g.initializers[o] = known.at(o);
      g.values[static_cast<size_t>(o)].is_initializer = true;
    }
  }
  // Remove folded nodes, then helpers (Constant, Unsqueeze of a constant...) nobody reads any more.
  std::vector<uint8_t> keep(g.nodes.size(), 1);
  for (size_t i = 0; i < g.nodes.size(); ++i) keep[i] = fold[i] ? 0 : 1;
  std::vector<int> readers(g.values.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    for (int in : g.nodes[i].inputs) {
      if (in != ir::kNoValue) ++readers[static_cast<size_t>(in)];
    }
  }
  // A subgraph reads outer values by name, not through consumer links: keep every helper then.
  bool has_subgraphs = false;
  for (const ir::Node& n : g.nodes) {
    for (const auto& [name, attr] : n.attributes) {
      has_subgraphs = has_subgraphs || attr.kind == ir::Attribute::Kind::kGraph ||
                      attr.kind == ir::Attribute::Kind::kGraphs;
    }
  }
  for (size_t i = g.nodes.size(); i-- > 0 && !has_subgraphs;) {
    if (!keep[i] || !needed[i] || ProducesGraphOutput(g, g.nodes[i])) continue;
    bool read = false;
    for (int o : g.nodes[i].outputs)
      read = read || (o != ir::kNoValue && readers[static_cast<size_t>(o)] > 0);
    if (read) continue;
    keep[i] = 0;
    ++stats.nodes_removed;
    for (int in : g.nodes[i].inputs) {
      if (in != ir::kNoValue) --readers[static_cast<size_t>(in)];
    }
  }
  std::vector<ir::Node> nodes;
  nodes.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (keep[i]) nodes.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(nodes);
  // Initializers nobody reads any more (outputs of removed helpers) are dropped from the file.
  g.RebuildLinks();
  for (auto it = g.initializers.begin(); it != g.initializers.end() && !has_subgraphs;) {
    const ir::Value& v = g.values[static_cast<size_t>(it->first)];
    if (v.consumers.empty() && !v.is_graph_output && !model.graph.initializers.count(it->first)) {
      g.values[static_cast<size_t>(it->first)].is_initializer = false;
      it = g.initializers.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace

Expected<ir::Model> MakeStaticModel(const ir::Model& model, StaticModelStats* stats) {
  StaticModelStats total;
  StaticModelStats pass;
  NPUGAP_ASSIGN_OR_RETURN(ir::Model out, FoldOnce(model, pass));
  // Folding gives shape inference new constants, so values whose dims it could not infer before
  // may now be static and their Shape chains foldable: re-import and fold until nothing changes.
  // Each pass removes nodes, so this ends.
  while (pass.nodes_folded > 0) {
    total.nodes_folded += pass.nodes_folded;
    total.nodes_removed += pass.nodes_removed;
    auto bytes = onnx_import::SerializeModel(out);
    if (!bytes.ok()) break;  // over protobuf's limit: keep the passes done so far
    auto again = onnx_import::LoadModelFromBytes(*bytes, ".", model.path);
    if (!again.ok()) return again.status().WithContext("re-reading the folded model");
    pass = {};
    NPUGAP_ASSIGN_OR_RETURN(ir::Model next, FoldOnce(*again, pass));
    if (pass.nodes_folded == 0) break;
    out = std::move(next);
  }
  if (stats) *stats = total;
  return out;
}

std::string AtcCommandLine(const ir::Model& model, const target::Target& target,
                           const std::string& model_path, const std::string& precision_mode_v2) {
  std::string shapes;
  for (int id : model.graph.inputs) {
    const ir::Value& v = model.graph.values[static_cast<size_t>(id)];
    if (!shapes.empty()) shapes += ';';
    shapes += v.name + ':';
    if (v.type.dims) {
      for (size_t i = 0; i < v.type.dims->size(); ++i) {
        const ir::Dim& d = (*v.type.dims)[i];
        if (i > 0) shapes += ',';
        shapes += d.is_static() ? std::to_string(d.value) : std::string("-1");
      }
    }
  }
  const std::string soc = target.compiler ? target.compiler->soc_version.value : std::string("?");
  // --output is the offline model's path without its .om suffix, which ATC appends. The model's
  // stem alone writes the .om into the folder atc runs in, as the ATC samples do
  // (`--model=resnet50.onnx ... --output=resnet50`), not next to the ONNX file, whose folder may
  // be a shared or read-only model store.
  const std::string stem = std::filesystem::path(model_path).stem().string();
  return fmt::format(
      "atc --model={} --framework=5 --output={} --input_shape=\"{}\" --soc_version={} --precision_mode_v2={}",
      model_path, stem, shapes, soc, precision_mode_v2);
}

}  // namespace npugap::compat
