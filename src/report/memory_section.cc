// Memory section: does the requested batch fit the device (training when --train, else the
// inference plan), the largest batch that does, and the bytes held over the execution order.
#include <algorithm>

#include <fmt/format.h>

#include "npugap/analysis/memory/layout.h"
#include "npugap/analysis/memory/lifetimes.h"
#include "npugap/report/build.h"
#include "npugap/report/format.h"

namespace npugap::report {

namespace mem = analysis::memory;

Expected<MemoryTimeline> ComputeMemoryTimeline(const ir::Graph& graph, const mem::ShapeMap& shapes,
                                               const target::Target& target) {
  NPUGAP_ASSIGN_OR_RETURN(mem::Lifetimes lt, mem::ComputeLifetimes(graph, shapes, target, true));
  int64_t weights = 0;
  for (const mem::Weight& w : lt.weights) weights += mem::AllocBytes(w.device_bytes, target);
  const auto steps = static_cast<size_t>(std::max(lt.steps, 1));
  // Difference array: +bytes at first, -bytes after last; O(buffers + steps).
  std::vector<int64_t> delta(steps + 1, 0);
  for (const mem::Buffer& b : lt.buffers) {
    const int64_t bytes = mem::AllocBytes(b.bytes, target);
    delta[static_cast<size_t>(std::clamp(b.first, 0, static_cast<int>(steps) - 1))] += bytes;
    delta[static_cast<size_t>(std::clamp(b.last, 0, static_cast<int>(steps) - 1)) + 1] -= bytes;
  }
  std::vector<int64_t> workspace(steps, 0);
  for (const mem::Workspace& w : lt.workspaces) {
    if (w.node >= 0 && static_cast<size_t>(w.node) < steps)
      workspace[static_cast<size_t>(w.node)] += mem::AllocBytes(w.bytes, target);
  }
  MemoryTimeline t;
  int64_t live = 0;
  for (size_t i = 0; i < steps; ++i) {
    live += delta[i];
    t.bytes.push_back(weights + live + workspace[i]);
    t.nodes.push_back(i < graph.nodes.size() ? graph.nodes[i].name : std::string());
  }
  return t;
}

Section MemorySection(const MemoryFacts& f, std::vector<Setting>* settings) {
  Section s;
  s.key = "memory";
  s.title = "Memory";
  const int64_t available = f.budget.available();
  const bool judged_training = f.training.has_value();
  const int64_t needed = judged_training ? f.training->total_bytes : f.inference.total_bytes;
  const std::string what = judged_training ? fmt::format("training ({})", f.optimizer) : "inference";
  const double use = available > 0 ? static_cast<double>(needed) / static_cast<double>(available) : 1e9;
  s.verdict = needed > available          ? Verdict::kFail
              : use > kMemoryWarnFraction ? Verdict::kWarning
                                          : Verdict::kOk;
  s.metrics.push_back({"needed_bytes", what + " at batch " + std::to_string(f.batch),
                       static_cast<double>(needed), "bytes", FormatBytes(static_cast<double>(needed))});
  s.metrics.push_back({"available_bytes", "available on the device", static_cast<double>(available), "bytes",
                       fmt::format("{} ({} - {} reserve)", FormatBytes(static_cast<double>(available)),
                                   FormatBytes(static_cast<double>(f.budget.device_bytes)),
                                   FormatBytes(static_cast<double>(f.budget.reserve_bytes)))});
  if (f.max_batch) {
    s.metrics.push_back({"max_batch", "largest batch that fits", static_cast<double>(*f.max_batch), "",
                         std::to_string(*f.max_batch)});
  } else {
    s.notes.push_back("largest batch: " + f.max_batch_note);
  }
  if (s.verdict == Verdict::kFail) {
    s.cause = fmt::format("{} needs {} but {} are available", what, FormatBytes(static_cast<double>(needed)),
                          FormatBytes(static_cast<double>(available)));
    if (f.max_batch && *f.max_batch > 0)
      s.fix = fmt::format("use batch {} (the largest that fits)", *f.max_batch);
    else if (f.max_batch)
      s.fix = "batch 1 does not fit: shard the model or pick a target with more memory";
    else
      s.fix = "reduce the batch (the model's batch is fixed in the file; re-export it with a symbolic batch)";
  } else if (s.verdict == Verdict::kWarning) {
    s.cause = fmt::format(
        "{} uses {} of the available memory; the caching allocator's fragmentation can "
        "push it over",
        what, FormatPercent(use));
    s.fix = f.max_batch ? fmt::format("keep the batch at or below {}", *f.max_batch)
                        : "leave headroom: a smaller batch";
  }
  const auto& inf = f.inference;
  s.details.push_back(
      fmt::format("inference: weights {}, activations {} (lower bound {}), workspace {}, total {}",
                  FormatBytes(static_cast<double>(inf.weights_bytes)),
                  FormatBytes(static_cast<double>(inf.activation_peak_bytes)),
                  FormatBytes(static_cast<double>(inf.lower_bound_bytes)),
                  FormatBytes(static_cast<double>(inf.workspace_bytes)),
                  FormatBytes(static_cast<double>(inf.total_bytes))));
  if (!inf.largest_buffer.empty()) {
    s.details.push_back(fmt::format("largest activation: {} ({})", inf.largest_buffer,
                                    FormatBytes(static_cast<double>(inf.largest_buffer_bytes))));
  }
  if (judged_training) {
    const auto& t = *f.training;
    s.details.push_back(fmt::format(
        "training: weights {}, gradients {}, optimizer {}, activations kept {}, transient {}, HCCL {}",
        FormatBytes(static_cast<double>(t.weights_bytes)),
        FormatBytes(static_cast<double>(t.gradients_bytes)),
        FormatBytes(static_cast<double>(t.optimizer_bytes)),
        FormatBytes(static_cast<double>(t.activations_bytes)),
        FormatBytes(static_cast<double>(t.transient_bytes)), FormatBytes(static_cast<double>(t.hccl_bytes))));
  }
  Chart c;
  c.id = "chart-memory-timeline";
  c.title = "Inference memory over the execution order (NPU layouts, allocator rounding)";
  c.x_label = "node index (execution order)";
  c.y_label = "GiB";
  Series line{"held", {}, {}};
  for (size_t i = 0; i < f.timeline.bytes.size(); ++i) {
    line.x.push_back(static_cast<double>(i));
    line.y.push_back(static_cast<double>(f.timeline.bytes[i]) / (1024.0 * 1024 * 1024));
  }
  c.series.push_back(std::move(line));
  c.y_markers.push_back({"available " + FormatBytes(static_cast<double>(available)),
                         static_cast<double>(available) / (1024.0 * 1024 * 1024)});
  if (judged_training) {
    c.y_markers.push_back({"training total " + FormatBytes(static_cast<double>(needed)),
                           static_cast<double>(needed) / (1024.0 * 1024 * 1024)});
  }
  if (!f.timeline.bytes.empty()) s.charts.push_back(std::move(c));
  if (settings != nullptr) {
    const bool fits = s.verdict != Verdict::kFail;
    const int64_t batch = fits ? f.batch : (f.max_batch ? *f.max_batch : 0);
    if (batch > 0) {
      settings->push_back(
          {SettingKind::kBatch, "batch", std::to_string(batch),
           fits ? "memory: the requested batch fits" : "memory: the largest batch that fits the device"});
    }
  }
  return s;
}

}  // namespace npugap::report
