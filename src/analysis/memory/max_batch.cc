#include "npugap/analysis/memory/max_batch.h"

#include <algorithm>
#include <utility>

namespace npugap::analysis::memory {

int64_t BatchSearchLimit(const ir::Graph& graph, const ShapeMap& shapes, int64_t batch,
                         const Budget& budget) {
  int64_t input_bytes_per_sample = 1;
  for (int v : graph.inputs) {
    const auto& s = shapes[static_cast<size_t>(v)];
    if (!s) continue;
    auto n = static_cast<int64_t>(ir::DTypeSize(graph.values[static_cast<size_t>(v)].type.dtype));
    for (int64_t d : *s) n *= d;
    input_bytes_per_sample += n / std::max<int64_t>(batch, 1);
  }
  return std::max<int64_t>(1, budget.available() / input_bytes_per_sample);
}

Expected<int64_t> LargestFittingBatch(const std::function<Expected<bool>(int64_t)>& fits, int64_t limit) {
  if (limit < 1) return int64_t{0};
  NPUGAP_ASSIGN_OR_RETURN(bool one, fits(1));
  if (!one) return int64_t{0};
  // Doubling finds a fitting `lo` and a failing `hi`; bisection closes the gap.
  int64_t lo = 1, hi = 0;
  while (hi == 0) {
    const int64_t next = lo > limit / 2 ? limit : lo * 2;
    if (next == lo) return limit;
    NPUGAP_ASSIGN_OR_RETURN(bool ok, fits(next));
    if (ok) {
      lo = next;
      if (lo == limit) return limit;
    } else {
      hi = next;
    }
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    NPUGAP_ASSIGN_OR_RETURN(bool ok, fits(mid));
    (ok ? lo : hi) = mid;
  }
  return lo;
}

std::function<Expected<bool>(int64_t)> FitsAtBatch(const ir::Graph& graph, ShapesAtBatch shapes_at,
                                                   const target::Target& target, FitPlan plan,
                                                   Budget budget) {
  return [&graph, &target, shapes_at = std::move(shapes_at), plan = std::move(plan),
          budget](int64_t b) -> Expected<bool> {
    NPUGAP_ASSIGN_OR_RETURN(auto shapes, shapes_at(b));
    if (plan.training) {
      NPUGAP_ASSIGN_OR_RETURN(auto r, PlanTraining(graph, shapes, target, *plan.training));
      return r.total_bytes <= budget.available();
    }
    NPUGAP_ASSIGN_OR_RETURN(auto r, PlanInference(graph, shapes, target, plan.inference));
    return r.total_bytes <= budget.available();
  };
}

}  // namespace npugap::analysis::memory
