// `npugap check MODEL --target T`: would ATC compile the model for the target, where each op runs
// (AI Core, AI CPU fallback, nowhere) and which shapes are dynamic, each with its fix.
// Exit 0: deployable with every op on AI Core and nothing dynamic; 1: gaps found; 2: bad input.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "npugap/analysis/compat/compat.h"
#include "npugap/analysis/compat/static_model.h"
#include "npugap/onnx/export.h"
#include "npugap/onnx/io_files.h"

namespace npugap::cli {
namespace {

struct CheckCliOptions {
  ModelOptions model;
  TargetOptions target;
  bool json = false;
  std::string write_static;
  std::string precision_mode_v2;
  std::vector<std::string> plugin_domains;
  const CLI::Option* batch_option = nullptr;
};

nlohmann::json ResultJson(const compat::CheckResult& r) {
  nlohmann::json j;
  j["target"] = r.target;
  j["soc_version"] = r.soc_version;
  j["precision_mode_v2"] = r.precision_mode_v2;
  j["opset"] = r.opset;
  j["opset_error"] = r.opset_error;
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : r.nodes) {
    j["nodes"].push_back({{"name", n.name},
                          {"scope", n.scope},
                          {"op_type", n.op_type},
                          {"domain", n.domain},
                          {"verdict", compat::VerdictName(n.verdict)},
                          {"error", compat::AtcErrorName(n.error)},
                          {"reason", n.reason},
                          {"basis", n.basis}});
  }
  j["dynamic"] = nlohmann::json::array();
  for (const auto& f : r.dynamic) {
    j["dynamic"].push_back({{"kind", compat::FindingKindName(f.kind)},
                            {"blocking", f.blocking},
                            {"subject", f.subject},
                            {"nodes", f.nodes},
                            {"detail", f.detail},
                            {"fix", f.fix}});
  }
  j["summary"] = {{"aicore", r.summary.aicore},
                  {"aicpu", r.summary.aicpu},
                  {"unsupported", r.summary.unsupported},
                  {"unknown", r.summary.unknown},
                  {"in_subgraphs", r.summary.in_subgraphs}};
  j["deployable"] = r.deployable;
  return j;
}

void PrintText(const ir::Model& model, const compat::CheckResult& r, int folded_nodes) {
  std::cout << fmt::format("model    {}   opset {}\ntarget   {} (--soc_version={}, --precision_mode_v2={})\n",
                           model.path, r.opset, r.target, r.soc_version, r.precision_mode_v2);
  std::cout << fmt::format("nodes    {}: aicore {}, aicpu {}, unsupported {}, unknown {}{}\n", r.nodes.size(),
                           r.summary.aicore, r.summary.aicpu, r.summary.unsupported, r.summary.unknown,
                           r.summary.in_subgraphs == 0
                               ? ""
                               : fmt::format(" ({} inside If / Loop / Scan bodies)", r.summary.in_subgraphs));
  if (!r.opset_error.empty()) std::cout << "opset    " << r.opset_error << "\n";
  if (folded_nodes > 0) {
    std::cout << fmt::format("folded   {} shape nodes into constants, as ATC does once --input_shape binds the inputs\n",
                             folded_nodes);
  }
  bool header = false;
  for (const auto& n : r.nodes) {
    if (n.verdict == compat::Verdict::kAiCore) continue;
    if (!header) std::cout << "\nnot on AI Core:\n";
    header = true;
    const std::string_view error = compat::AtcErrorName(n.error);
    std::cout << fmt::format("  {:<11} {:<8} {} ({}{}): {}\n", compat::VerdictName(n.verdict),
                             error.empty() ? "-" : error, n.name,
                             n.domain.empty() ? "" : n.domain + "::", n.op_type, n.reason);
  }
  if (!r.dynamic.empty()) std::cout << "\ndynamic shapes:\n";
  for (const auto& f : r.dynamic) {
    std::cout << fmt::format("  {:<8} {:<20} {}\n           fix: {}\n", f.blocking ? "blocking" : "folds",
                             compat::FindingKindName(f.kind), f.detail, f.fix);
  }
  std::cout << "\n"
            << (r.clean        ? "deployable as is: every op on AI Core, static shapes\n"
                : r.deployable ? "deployable, with gaps (AI CPU fallbacks or foldable shape chains above)\n"
                               : "not deployable as is: fix the blocking items above\n");
}

int RunCheck(const CheckCliOptions& o) {
  if (o.batch_option != nullptr && o.batch_option->count() > 0 && o.model.batch <= 0) {
    return ReportError(Status::InvalidArgument(fmt::format("--batch {}: must be positive", o.model.batch)));
  }
  for (const std::string& d : o.plugin_domains) {
    // Plugins are matched against non-standard domains only (docs/compat.md); say so rather than
    // accept a declaration that could never apply.
    if (d.empty() || d == "ai.onnx") {
      return ReportError(Status::InvalidArgument(fmt::format(
          "--plugin-domain '{}': the standard ONNX domain; custom ops need a domain of their own", d)));
    }
  }
  auto target = LoadTargetWithOptions(o.target);
  if (!target.ok()) return ReportError(target.status());
  int folded_nodes = 0;
  auto model = LoadModelWithOptions(o.model, &folded_nodes);
  if (!model.ok()) return ReportError(model.status());
  compat::CheckOptions options;
  options.precision_mode_v2 = o.precision_mode_v2;
  options.plugin_domains = o.plugin_domains;
  auto result = compat::CheckModel(*model, *target, options);
  if (!result.ok()) return ReportError(result.status());
  for (const auto& w : target->warnings) std::cerr << "npugap: warning: " << w << "\n";

  nlohmann::json j = ResultJson(*result);
  j["folded_nodes"] = folded_nodes;
  if (!o.write_static.empty()) {
    compat::StaticModelStats stats;
    auto static_model = compat::MakeStaticModel(*model, &stats);
    if (!static_model.ok()) return ReportError(static_model.status().WithContext("--write-static"));
    auto bytes = onnx_import::SerializeModel(*static_model);
    if (!bytes.ok()) return ReportError(bytes.status().WithContext("--write-static"));
    if (auto s = onnx_import::WriteFileAtomically(o.write_static, *bytes); !s.ok()) return ReportError(s);
    const std::string atc =
        compat::AtcCommandLine(*static_model, *target, o.write_static, result->precision_mode_v2);
    j["static_model"] = {{"path", o.write_static},
                         {"nodes_folded", stats.nodes_folded},
                         {"nodes_removed", stats.nodes_removed},
                         {"atc", atc}};
    if (!o.json) {
      std::cout << fmt::format("wrote    {} ({} shape nodes folded, {} constants removed)\n{}\n\n",
                               o.write_static, stats.nodes_folded, stats.nodes_removed, atc);
    }
  }
  if (o.json)
    std::cout << j.dump(2) << "\n";
  else
    PrintText(*model, *result, folded_nodes);
  return result->clean ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command AddCheckCommand(CLI::App& app) {
  auto options = std::make_shared<CheckCliOptions>();
  CLI::App* cmd =
      app.add_subcommand("check", "ATC compatibility: per-op AI Core / AI CPU / unsupported, dynamic shapes");
  AddModelOptions(*cmd, options->model);
  options->model.fold_shapes = true;  // what ATC sees once --input_shape binds the inputs
  AddTargetOption(*cmd, options->target);
  options->batch_option = cmd->get_option("--batch");
  cmd->add_flag("--json", options->json, "print one JSON object");
  cmd->add_option("--write-static", options->write_static,
                  "write the model with bound shapes and shape chains folded, and print the ATC command");
  cmd->add_option("--precision-mode-v2", options->precision_mode_v2,
                  "ATC --precision_mode_v2 (default: the target's); 'origin' keeps fp32")
      ->check(CLI::IsMember(
          {"fp16", "origin", "cube_fp16in_fp32out", "mixed_float16", "mixed_bfloat16", "mixed_hif8"}));
  cmd->add_option("--plugin-domain", options->plugin_domains,
                  "an op domain with a custom-op plugin installed: every op of it on AI Core, over the "
                  "profile's compiler.custom_ops (repeatable)");
  return {cmd, [options] { return RunCheck(*options); }};
}

}  // namespace npugap::cli
