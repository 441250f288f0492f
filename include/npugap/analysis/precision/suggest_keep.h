// --suggest-keep: a small set of nodes to keep in FP32 so that every output passes.
//
// Nodes are ranked by the error each adds (its output's 1 - cosine minus the worst of its inputs',
// overflowing nodes first), then the shortest ranked prefix that passes is found by doubling and
// bisection (log2 n runs instead of one run per node), then each kept node is tried without
// (least important first) and dropped when the outputs still pass. The set is finally verified by
// a separate run (fresh samples where the inputs are random). The search only sees the model through
// an injected evaluator, so it is tested without the emulator.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "npugap/analysis/precision/compare.h"
#include "npugap/analysis/precision/plan.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::analysis::precision {

// Runs the emulated target with these nodes kept in FP32 and compares it with the reference.
using KeepEvaluator =
    std::function<Expected<PrecisionComparison>(const std::vector<std::string>& keep_nodes)>;

struct KeepSearchOptions {
  double goal_cosine = 0.999;  // every output's cosine must reach this, besides passing the verdict
  int max_runs = 48;           // evaluator calls for the search (the verification run not counted)
};

struct RankedNode {
  std::string node;
  std::string op_type;
  double added_error = 0;  // 1 - cosine of its output minus the worst of its inputs'
  int64_t overflow = 0;
};

// The re-run with the written --modify_mixlist JSON (VerifyMixlist). The mixlist is coarser than
// the node set: it sends every node of the kept op types to the black list.
struct MixlistCheck {
  bool ran = false;      // a mixlist was written and checked
  bool applies = false;  // the mode is a mixed one; ATC ignores --modify_mixlist otherwise (not re-run)
  bool achieved = false;
  PrecisionComparison verified;
};

struct KeepSuggestion {
  bool already_passing = false;       // the baseline met the goal; nothing to keep
  bool achieved = false;              // the verified set meets the goal
  std::vector<std::string> nodes;     // in topological order
  std::vector<std::string> op_types;  // distinct op types of `nodes`, sorted
  std::vector<RankedNode> ranking;    // candidates, most harmful first
  int runs = 0;                       // evaluator calls, verification included
  bool budget_exhausted = false;      // pruning stopped at max_runs
  int64_t fp32_flops = 0;             // FLOPs of the kept nodes (ir::NodeFlops)
  int64_t candidate_flops = 0;        // FLOPs of every candidate node
  PrecisionComparison verified;       // the verification run
  MixlistCheck mixlist;               // the written mixlist's own run
};

// True when every output passes its verdict and reaches `goal_cosine`.
bool MeetsGoal(const PrecisionComparison& c, double goal_cosine);

// `candidates`: the nodes the plan runs below FP32 (names); others are never proposed.
// `verify`: the verification run (may be the same function as `evaluate`).
Expected<KeepSuggestion> SuggestKeep(const ir::Model& model, const std::vector<std::string>& candidates,
                                     const PrecisionComparison& baseline, const KeepEvaluator& evaluate,
                                     const KeepEvaluator& verify, const KeepSearchOptions& options);

// Runs the emulated target under this plan and compares it with the reference.
using PlanEvaluator = std::function<Expected<PrecisionComparison>(const PrecisionPlan& plan)>;

// Checks the suggestion's ModifyMixlistText by re-running: `options` (the user's) with that JSON
// in place of the user's --modify_mixlist and no nodes forced to FP32. Fills s.mixlist; does
// nothing when nothing was kept.
Status VerifyMixlist(const ir::Model& model, const target::Target& target, PrecisionOptions options,
                     const PlanEvaluator& run, double goal_cosine, KeepSuggestion& s);

// ATC --keep_dtype file: one node name per line.
std::string KeepDtypeFileText(const KeepSuggestion& s);
// ATC --modify_mixlist JSON: the kept nodes' op types added to the black list. Coarser than the
// keep_dtype file: it keeps every node of those op types in FP32, not only the chosen ones. Op types
// are written as Ascend IR names (Conv2D, MatMulV2, ...) where the mixed-precision list data has one.
std::string ModifyMixlistText(const KeepSuggestion& s);

}  // namespace npugap::analysis::precision
