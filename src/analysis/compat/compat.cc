#include "npugap/analysis/compat/compat.h"

#include <fmt/format.h>

#include <algorithm>

#include "npugap/exec/op_table.h"

#include "internal.h"

namespace npugap::compat {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kAiCore:
      return "aicore";
    case Verdict::kAiCpu:
      return "aicpu";
    case Verdict::kUnsupported:
      return "unsupported";
    case Verdict::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view AtcErrorName(AtcError e) {
  switch (e) {
    case AtcError::kNone:
      return "";
    case AtcError::kE19010:
      return "E19010";
    case AtcError::kEZ3002:
      return "EZ3002";
    case AtcError::kEZ3003:
      return "EZ3003";
  }
  return "";
}

std::string_view FindingKindName(FindingKind k) {
  switch (k) {
    case FindingKind::kSymbolicInput:
      return "symbolic_input";
    case FindingKind::kShapeSubgraph:
      return "shape_subgraph";
    case FindingKind::kDataDependentShape:
      return "data_dependent_shape";
    case FindingKind::kControlFlow:
      return "control_flow";
  }
  return "";
}

namespace {

void Count(Verdict v, Summary& s) {
  switch (v) {
    case Verdict::kAiCore:
      ++s.aicore;
      break;
    case Verdict::kAiCpu:
      ++s.aicpu;
      break;
    case Verdict::kUnsupported:
      ++s.unsupported;
      break;
    case Verdict::kUnknown:
      ++s.unknown;
      break;
  }
}

// Verdicts for every node of `g` and, after each node, of its subgraphs: the bodies of
// If / Loop / Scan need kernels too (assumed; docs/compat.md), so an unsupported op inside one counts.
void ClassifyGraph(const ir::Graph& g, const std::string& scope, int64_t opset,
                   const internal::TargetView& view, CheckResult& r) {
  for (const ir::Node& n : g.nodes) {
    NodeResult nr = internal::ClassifyNode(g, n, opset, view);
    if (!scope.empty()) {
      nr.scope = scope;
      nr.name = scope + "/" + n.name;
      ++r.summary.in_subgraphs;
    }
    Count(nr.verdict, r.summary);
    const std::string owner = nr.name;
    r.nodes.push_back(std::move(nr));
    for (const auto& [attr, a] : n.attributes) {
      if (a.kind == ir::Attribute::Kind::kGraph && a.g != nullptr) {
        ClassifyGraph(*a.g, owner + "/" + attr, opset, view, r);
      } else if (a.kind == ir::Attribute::Kind::kGraphs) {
        for (size_t i = 0; i < a.graphs.size(); ++i) {
          if (a.graphs[i] != nullptr)
            ClassifyGraph(*a.graphs[i], fmt::format("{}/{}[{}]", owner, attr, i), opset, view, r);
        }
      }
    }
  }
}

}  // namespace

Expected<CheckResult> CheckModel(const ir::Model& model, const target::Target& target,
                                 const CheckOptions& options) {
  if (!target.compiler) {
    return Status::InvalidArgument(
        fmt::format("target '{}' has no ATC compiler section (kind {}); check needs an Ascend target",
                    target.name, target.kind));
  }
  CheckResult r;
  r.target = target.name;
  r.soc_version = target.compiler->soc_version.value;
  r.precision_mode_v2 = options.precision_mode_v2.empty() ? target.compiler->precision_mode_v2_default.value
                                                          : options.precision_mode_v2;
  r.opset = model.DefaultOpset();
  const internal::TargetView view =
      internal::MakeTargetView(target, r.precision_mode_v2, options.plugin_domains);

  const ir::Graph& g = model.graph;
  r.nodes.reserve(g.nodes.size());
  ClassifyGraph(g, "", r.opset, view, r);
  if (r.opset < view.opset_min || r.opset > view.opset_max) {
    // npugap itself reads opsets up to exec::kMaxSupportedOpset, so suggest one both accept.
    r.opset_error = fmt::format(
        "ai.onnx opset {} is outside ATC's {}..{} (E19010 on every op); re-export with "
        "torch.onnx.export(..., opset_version={})",
        r.opset, view.opset_min, view.opset_max, std::min<int64_t>(view.opset_max, exec::kMaxSupportedOpset));
  }
  const ValueFlow flow = AnalyzeValueFlow(g);
  for (Finding& f : internal::FindDynamicShapes(g, flow, r.opset)) r.dynamic.push_back(std::move(f));

  bool blocking = false;
  for (const Finding& f : r.dynamic) blocking = blocking || f.blocking;
  r.deployable = r.summary.unsupported == 0 && r.opset_error.empty() && !blocking;
  r.clean = r.deployable && r.summary.aicpu == 0 && r.summary.unknown == 0 && r.dynamic.empty();
  return r;
}

}  // namespace npugap::compat
