#include "npugap/analysis/memory/inference.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace npugap::analysis::memory {

Expected<InferenceReport> PlanInference(const ir::Graph& graph, const ShapeMap& shapes,
                                        const target::Target& target, const InferenceOptions& options) {
  auto planner = MakePlanner(options.planner);
  if (!planner) {
    return Status::InvalidArgument(
        fmt::format("unknown planner '{}' (greedy-by-size, naive)", options.planner));
  }
  NPUGAP_ASSIGN_OR_RETURN(Lifetimes lt, ComputeLifetimes(graph, shapes, target, options.npu_layouts));
  InferenceReport r;
  r.planner = std::string(planner->name());
  for (const Weight& w : lt.weights) {
    r.weights_bytes += AllocBytes(w.device_bytes, target);
    r.weights_nd_bytes += w.nd_bytes;
  }
  std::vector<TensorUse> uses;
  uses.reserve(lt.buffers.size());
  for (const Buffer& b : lt.buffers) {
    uses.push_back({b.value, AllocBytes(b.bytes, target), b.first, b.last});
    const ir::Value& v = graph.values[static_cast<size_t>(b.value)];
    if (b.layout != Layout::kNd && shapes[static_cast<size_t>(b.value)]) {
      r.layout_padding_bytes +=
          b.bytes - PaddedBytes(*shapes[static_cast<size_t>(b.value)], v.type.dtype, Layout::kNd, target);
    }
    if (b.bytes > r.largest_buffer_bytes) {
      r.largest_buffer_bytes = b.bytes;
      r.largest_buffer = v.name;
    }
  }
  r.buffers = static_cast<int64_t>(uses.size());
  r.activation_peak_bytes = planner->Assign(uses).peak_bytes;
  r.naive_bytes = NaivePlanner().Assign(uses).peak_bytes;
  r.lower_bound_bytes = LowerBound(uses);
  // Workspaces of one node are live together; nodes run one at a time, so the workspace area is
  // the largest per-node sum.
  std::vector<int64_t> per_node(static_cast<size_t>(lt.steps), 0);
  for (const Workspace& w : lt.workspaces)
    per_node[static_cast<size_t>(w.node)] += AllocBytes(w.bytes, target);
  for (int64_t b : per_node) r.workspace_bytes = std::max(r.workspace_bytes, b);
  r.total_bytes = r.weights_bytes + r.activation_peak_bytes + r.workspace_bytes;
  return r;
}

}  // namespace npugap::analysis::memory
