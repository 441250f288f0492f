#include "npugap/analysis/precision/suggest_keep.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "analysis/precision/internal.h"
#include "npugap/ir/flops.h"

namespace npugap::analysis::precision {
namespace {

// 1 - cosine, with a non-finite or failing-by-overflow tensor counted as the worst (2).
double ErrorOf(const TensorComparison& t) {
  if (!std::isfinite(t.metrics.cosine) || t.metrics.non_finite_mismatch > 0) return 2;
  return std::max(0.0, 1 - t.metrics.cosine);
}

std::vector<RankedNode> Rank(const ir::Model& model, const std::vector<std::string>& candidates,
                             const PrecisionComparison& baseline) {
  const ir::Graph& g = model.graph;
  std::unordered_map<std::string, const TensorComparison*> by_value;
  for (const auto& t : baseline.tensors) by_value[t.name] = &t;
  std::unordered_map<std::string, int> node_index;
  for (size_t i = 0; i < g.nodes.size(); ++i) node_index[g.nodes[i].name] = static_cast<int>(i);
  std::vector<RankedNode> ranked;
  for (const std::string& name : candidates) {
    const auto it = node_index.find(name);
    if (it == node_index.end()) continue;
    const ir::Node& n = g.nodes[static_cast<size_t>(it->second)];
    double out_err = 0, in_err = 0;
    int64_t overflow = 0;
    for (int v : n.outputs) {
      if (v == ir::kNoValue) continue;
      if (auto t = by_value.find(g.values[static_cast<size_t>(v)].name); t != by_value.end()) {
        out_err = std::max(out_err, ErrorOf(*t->second));
        overflow += t->second->metrics.overflow_count();
      }
    }
    for (int v : n.inputs) {
      if (v == ir::kNoValue) continue;
      if (auto t = by_value.find(g.values[static_cast<size_t>(v)].name); t != by_value.end()) {
        in_err = std::max(in_err, ErrorOf(*t->second));
      }
    }
    ranked.push_back({n.name, n.op_type, out_err - in_err, overflow});
  }
  // Overflowing nodes first (saturation / INF is the error no later node can undo), then by error.
  std::stable_sort(ranked.begin(), ranked.end(), [](const RankedNode& a, const RankedNode& b) {
    if ((a.overflow > 0) != (b.overflow > 0)) return a.overflow > 0;
    return a.added_error > b.added_error;
  });
  return ranked;
}

std::vector<std::string> Prefix(const std::vector<RankedNode>& ranked, size_t k) {
  std::vector<std::string> names;
  for (size_t i = 0; i < k && i < ranked.size(); ++i) names.push_back(ranked[i].node);
  return names;
}

}  // namespace

bool MeetsGoal(const PrecisionComparison& c, double goal_cosine) {
  if (!c.outputs_pass) return false;
  for (size_t i : c.outputs) {
    const double cos = c.tensors[i].metrics.cosine;
    if (!std::isfinite(cos) || cos < goal_cosine) return false;
  }
  return true;
}

Expected<KeepSuggestion> SuggestKeep(const ir::Model& model, const std::vector<std::string>& candidates,
                                     const PrecisionComparison& baseline, const KeepEvaluator& evaluate,
                                     const KeepEvaluator& verify, const KeepSearchOptions& options) {
  KeepSuggestion s;
  s.ranking = Rank(model, candidates, baseline);
  const ir::Graph& g = model.graph;
  const std::unordered_set<std::string> candidate_set(candidates.begin(), candidates.end());
  for (const ir::Node& n : g.nodes) {
    if (candidate_set.count(n.name)) s.candidate_flops += ir::NodeFlops(g, n).value_or(0);
  }
  if (MeetsGoal(baseline, options.goal_cosine)) {
    s.already_passing = s.achieved = true;
    s.verified = baseline;
    return s;
  }
  auto passes = [&](const std::vector<std::string>& keep) -> Expected<bool> {
    ++s.runs;
    NPUGAP_ASSIGN_OR_RETURN(PrecisionComparison c, evaluate(keep));
    return MeetsGoal(c, options.goal_cosine);
  };

  // Doubling: the first prefix length that passes (hi), with lo the last one known to fail.
  const size_t n = s.ranking.size();
  size_t lo = 0, hi = 0;
  bool found = false;
  for (size_t k = 1; n > 0; k = std::min(k * 2, n)) {
    NPUGAP_ASSIGN_OR_RETURN(bool ok, passes(Prefix(s.ranking, k)));
    if (ok) {
      hi = k;
      found = true;
      break;
    }
    lo = k;
    if (k == n) break;
  }
  std::vector<std::string> keep;
  if (found) {
    while (hi - lo > 1 && s.runs < options.max_runs) {  // bisection: lo fails, hi passes
      const size_t mid = lo + (hi - lo) / 2;
      NPUGAP_ASSIGN_OR_RETURN(bool ok, passes(Prefix(s.ranking, mid)));
      (ok ? hi : lo) = mid;
    }
    keep = Prefix(s.ranking, hi);
    // Prune: least important first; drop a node when the rest still passes.
    for (size_t i = keep.size(); i-- > 0;) {
      if (keep.size() <= 1) break;
      if (s.runs >= options.max_runs) {
        s.budget_exhausted = true;
        break;
      }
      std::vector<std::string> without = keep;
      without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
      NPUGAP_ASSIGN_OR_RETURN(bool ok, passes(without));
      if (ok) keep = std::move(without);
    }
  } else {
    keep = Prefix(s.ranking, n);  // even all candidates in FP32 do not pass: report that set
  }
  // Topological order for the files and the report.
  const std::unordered_set<std::string> kept(keep.begin(), keep.end());
  std::set<std::string> types;
  for (const ir::Node& node : g.nodes) {
    if (!kept.count(node.name)) continue;
    s.nodes.push_back(node.name);
    types.insert(node.op_type);
    s.fp32_flops += ir::NodeFlops(g, node).value_or(0);
  }
  s.op_types.assign(types.begin(), types.end());
  ++s.runs;
  NPUGAP_ASSIGN_OR_RETURN(s.verified, verify(s.nodes));
  s.achieved = found && MeetsGoal(s.verified, options.goal_cosine);
  return s;
}

Status VerifyMixlist(const ir::Model& model, const target::Target& target, PrecisionOptions options,
                     const PlanEvaluator& run, double goal_cosine, KeepSuggestion& s) {
  s.mixlist = {};
  if (s.already_passing || s.op_types.empty()) return Status::Ok();
  s.mixlist.ran = true;
  const std::string mode =
      options.mode.empty() ? target.framework.default_precision_mode.value : options.mode;
  const std::optional<internal::ModeSpec> spec = internal::FindMode(mode);
  s.mixlist.applies = spec && spec->kind == internal::ModeKind::kMixed;
  if (!s.mixlist.applies) return Status::Ok();
  options.modify_mixlist_file.clear();
  options.modify_mixlist_text = ModifyMixlistText(s);
  options.keep_fp32_nodes.clear();
  NPUGAP_ASSIGN_OR_RETURN(PrecisionPlan plan, BuildPrecisionPlan(model, target, options));
  NPUGAP_ASSIGN_OR_RETURN(s.mixlist.verified, run(plan));
  s.mixlist.achieved = MeetsGoal(s.mixlist.verified, goal_cosine);
  return Status::Ok();
}

std::string KeepDtypeFileText(const KeepSuggestion& s) {
  std::string text;
  for (const auto& n : s.nodes) text += n + "\n";
  return text;
}

std::string ModifyMixlistText(const KeepSuggestion& s) {
  // ATC names Ascend IR op types (Conv2D, MatMulV2, ...): mapped through the mixed-precision list
  // data; an op type the data does not list is written as its ONNX name (npugap reads both).
  auto lists = internal::BuiltinOpLists();
  std::set<std::string> names;
  for (const std::string& onnx : s.op_types) {
    const internal::OpListEntry* e = lists.ok() ? lists->Find(onnx) : nullptr;
    names.insert(e && !e->ascend.empty() ? e->ascend : onnx);
  }
  nlohmann::json j;
  j["black-list"]["to-add"] = std::vector<std::string>(names.begin(), names.end());
  return j.dump(2) + "\n";
}

}  // namespace npugap::analysis::precision
