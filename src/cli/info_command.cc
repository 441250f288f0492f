// `npugap info MODEL`: inputs, outputs, op counts, parameters and FLOPs per op type.
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "npugap/ir/flops.h"

namespace npugap::cli {
namespace {

struct InfoOptions {
  ModelOptions model;
  bool json = false;
};

nlohmann::json ValueJson(const ir::Value& v) {
  nlohmann::json shape = nlohmann::json::array();
  if (v.type.dims) {
    for (const ir::Dim& d : *v.type.dims) {
      if (d.is_static()) shape.push_back(d.value);
      else shape.push_back(d.symbol.empty() ? "?" : d.symbol);
    }
  } else {
    shape = nullptr;
  }
  return {{"name", v.name}, {"dtype", std::string(ir::DTypeName(v.type.dtype))}, {"shape", shape}};
}

int RunInfo(const InfoOptions& o) {
  auto model = LoadModelWithOptions(o.model);
  if (!model.ok()) return ReportError(model.status());
  const ir::Graph& g = model->graph;

  std::map<std::string, int64_t> op_counts;
  std::map<std::string, int64_t> flops;
  int64_t total_flops = 0;
  int64_t unknown_flop_nodes = 0;
  for (const ir::Node& n : g.nodes) {
    const std::string key = n.domain.empty() ? n.op_type : n.domain + "::" + n.op_type;
    ++op_counts[key];
    if (auto f = ir::NodeFlops(g, n)) {
      flops[key] += *f;
      total_flops += *f;
    } else {
      ++unknown_flop_nodes;
    }
  }
  int64_t param_count = 0;
  int64_t param_bytes = 0;
  for (const auto& [id, t] : g.initializers) {
    param_count += t.numel();
    param_bytes += static_cast<int64_t>(t.nbytes());
  }

  nlohmann::json j;
  j["model"] = model->path;
  j["opset"] = model->DefaultOpset();
  j["producer"] = model->producer;
  j["inputs"] = nlohmann::json::array();
  for (int id : g.inputs) j["inputs"].push_back(ValueJson(g.values[static_cast<size_t>(id)]));
  j["outputs"] = nlohmann::json::array();
  for (int id : g.outputs) j["outputs"].push_back(ValueJson(g.values[static_cast<size_t>(id)]));
  j["nodes"] = g.nodes.size();
  j["op_counts"] = op_counts;
  j["params"] = {{"count", param_count}, {"bytes", param_bytes}, {"tensors", g.initializers.size()}};
  j["flops"] = {{"total", total_flops}, {"by_op_type", flops}, {"nodes_with_unknown_shapes", unknown_flop_nodes}};
  j["warnings"] = model->warnings;
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("model    {}\nopset    {}   producer {}\nnodes    {}\n", model->path, model->DefaultOpset(),
                           model->producer.empty() ? "-" : model->producer, g.nodes.size());
  for (int id : g.inputs) {
    const auto& v = g.values[static_cast<size_t>(id)];
    std::cout << fmt::format("input    {:<24} {}\n", v.name, v.type.ToString());
  }
  for (int id : g.outputs) {
    const auto& v = g.values[static_cast<size_t>(id)];
    std::cout << fmt::format("output   {:<24} {}\n", v.name, v.type.ToString());
  }
  std::cout << fmt::format("params   {} in {} tensors, {:.2f} MB\n", param_count, g.initializers.size(),
                           static_cast<double>(param_bytes) / 1e6);
  std::cout << fmt::format("FLOPs    {:.4g} G", static_cast<double>(total_flops) / 1e9);
  if (unknown_flop_nodes) std::cout << fmt::format(" (+{} nodes with symbolic shapes; bind --batch/--shape)", unknown_flop_nodes);
  std::cout << "\n\n" << fmt::format("{:<28} {:>6} {:>14}\n", "op type", "nodes", "GFLOPs");
  for (const auto& [op, count] : op_counts) {
    auto it = flops.find(op);
    std::cout << fmt::format("{:<28} {:>6} {:>14.4f}\n", op, count,
                             it == flops.end() ? 0.0 : static_cast<double>(it->second) / 1e9);
  }
  for (const auto& w : model->warnings) std::cout << "warning: " << w << "\n";
  return kExitOk;
}

}  // namespace

Command AddInfoCommand(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "inputs, outputs, op counts, parameters and FLOPs of a model");
  AddModelOptions(*cmd, options->model);
  cmd->add_flag("--json", options->json, "print one JSON object");
  return {cmd, [options] { return RunInfo(*options); }};
}

}  // namespace npugap::cli
