// Compatibility section: fail when ATC would not build the model, warning for AI CPU fallbacks
// and shape chains that only fold once bound, ok when every op is on AI Core with static shapes.
#include <fmt/format.h>

#include "npugap/report/build.h"
#include "npugap/report/format.h"

namespace npugap::report {

Section NotAvailableSection(std::string key, std::string title, std::string reason) {
  Section s;
  s.key = std::move(key);
  s.title = std::move(title);
  s.verdict = Verdict::kNotAvailable;
  s.not_available = std::move(reason);
  return s;
}

namespace {

std::string NodeLabel(const compat::NodeResult& n) {
  return fmt::format("{} ({}{})", n.name, n.domain.empty() ? "" : n.domain + "::", n.op_type);
}

// The first cause in the order a user has to fix things: the opset, unsupported ops, blocking
// dynamic shapes, then (warnings) AI CPU fallbacks and foldable shape chains.
void FirstCause(const compat::CheckResult& r, Section& s) {
  if (!r.opset_error.empty()) {
    s.cause = r.opset_error;
    s.fix = "re-export the model at an opset ATC accepts (torch.onnx.export(..., opset_version=...))";
    return;
  }
  for (const auto& n : r.nodes) {
    if (n.verdict == compat::Verdict::kUnsupported) {
      const std::string_view err = compat::AtcErrorName(n.error);
      s.cause = fmt::format("{}{}: {}", err.empty() ? "" : std::string(err) + " ", NodeLabel(n), n.reason);
      s.fix = "replace the op in the exported model, or install a custom-op plugin for it";
      return;
    }
  }
  for (const auto& f : r.dynamic) {
    if (!f.blocking) continue;
    s.cause = f.detail;
    s.fix = f.fix;
    return;
  }
  for (const auto& n : r.nodes) {
    if (n.verdict == compat::Verdict::kAiCpu) {
      s.cause = fmt::format("{} falls back to AI CPU: {}", NodeLabel(n), n.reason);
      s.fix = "keep the op on AI Core (a supported dtype or attribute), or accept the AI CPU round trip";
      return;
    }
  }
  if (!r.dynamic.empty()) {
    s.cause = r.dynamic.front().detail;
    s.fix = r.dynamic.front().fix;
  }
}

}  // namespace

Section CompatSection(const compat::CheckResult& r, const std::string& atc_command,
                      std::vector<Setting>* settings) {
  Section s;
  s.key = "compat";
  s.title = "Compatibility";
  s.verdict = r.clean ? Verdict::kOk : r.deployable ? Verdict::kWarning : Verdict::kFail;
  const auto total = static_cast<double>(r.nodes.size());
  s.metrics.push_back({"aicore_nodes", "nodes on AI Core", static_cast<double>(r.summary.aicore), "",
                       fmt::format("{} of {}", r.summary.aicore, r.nodes.size())});
  s.metrics.push_back({"aicpu_nodes", "AI CPU fallbacks", static_cast<double>(r.summary.aicpu), "",
                       std::to_string(r.summary.aicpu)});
  s.metrics.push_back({"unsupported_nodes", "unsupported", static_cast<double>(r.summary.unsupported), "",
                       std::to_string(r.summary.unsupported)});
  int64_t blocking = 0;
  for (const auto& f : r.dynamic) blocking += f.blocking ? 1 : 0;
  s.metrics.push_back({"blocking_dynamic", "blocking dynamic shapes", static_cast<double>(blocking), "",
                       std::to_string(blocking)});
  FirstCause(r, s);
  for (const auto& n : r.nodes) {
    if (n.verdict == compat::Verdict::kAiCore) continue;
    s.details.push_back(fmt::format("{:<11} {}: {}", compat::VerdictName(n.verdict), NodeLabel(n), n.reason));
  }
  for (const auto& f : r.dynamic) {
    s.details.push_back(fmt::format("{} {}: {} (fix: {})", f.blocking ? "blocking" : "folds",
                                    compat::FindingKindName(f.kind), f.detail, f.fix));
  }
  // Where each op runs, as a bar chart: the share a user looks for first.
  Chart c;
  c.id = "chart-compat-placement";
  c.title = "Where the ops run";
  c.kind = ChartKind::kBar;
  c.x_label = "placement";
  c.y_label = "nodes";
  c.categories = {"AI Core", "AI CPU", "unsupported", "unknown"};
  c.series.push_back({"nodes",
                      {0, 1, 2, 3},
                      {static_cast<double>(r.summary.aicore), static_cast<double>(r.summary.aicpu),
                       static_cast<double>(r.summary.unsupported), static_cast<double>(r.summary.unknown)}});
  if (total > 0) s.charts.push_back(std::move(c));
  if (settings != nullptr && !r.soc_version.empty()) {
    settings->push_back({SettingKind::kAtcFlag, "--soc_version", r.soc_version, "compat: the target's SoC"});
    settings->push_back({SettingKind::kAtcFlag, "--precision_mode_v2", r.precision_mode_v2,
                         "compat: the precision mode the check assumed"});
    if (!atc_command.empty()) {
      settings->push_back({SettingKind::kCommand, "atc", atc_command,
                           r.deployable ? "compat: compiles the bound, static model"
                                        : "compat: after the blocking items are fixed"});
    }
  }
  return s;
}

}  // namespace npugap::report
