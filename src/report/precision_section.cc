// Precision section (builder): per-layer cosine and max error of the emulated target against the
// FP32 reference, the first layer below the threshold, and the keep-FP32 fix.
#include <fmt/format.h>

#include "npugap/report/build.h"

namespace npugap::report {

Section PrecisionSection(const PrecisionFacts& f, std::vector<Setting>* settings) {
  Section s;
  s.key = "precision";
  s.title = "Precision";
  const LayerError* first = nullptr;
  size_t first_index = 0;
  for (size_t i = 0; i < f.layers.size() && first == nullptr; ++i) {
    if (f.layers[i].cosine < f.cosine_threshold) first = &f.layers[i], first_index = i;
  }
  s.notes = f.notes;
  s.verdict = f.output_cosine < f.cosine_threshold ? Verdict::kFail
              : first != nullptr                   ? Verdict::kWarning
                                                   : Verdict::kOk;
  s.metrics.push_back({"output_cosine",
                       fmt::format("output cosine ({}, {} samples in {} {})", f.mode, f.samples, f.batches,
                                   f.batches == 1 ? "batch" : "batches"),
                       f.output_cosine, "", fmt::format("{:.6f}", f.output_cosine)});
  s.metrics.push_back({"output_max_abs_error", "output max |error|", f.output_max_abs_error, "",
                       fmt::format("{:.3g}", f.output_max_abs_error)});
  if (first != nullptr) {
    s.metrics.push_back({"first_failing_layer", "first layer below the threshold",
                         static_cast<double>(first_index), "", first->node});
    s.cause = fmt::format("{} ({}) has cosine {:.6f} < {} ({})", first->node, first->op_type, first->cosine,
                          f.cosine_threshold, f.threshold_source);
  }
  if (s.verdict != Verdict::kOk) {
    std::string list;
    for (const auto& n : f.keep_fp32) list += (list.empty() ? "" : ", ") + n;
    s.fix = !f.keep_fp32.empty() ? "keep these nodes in FP32 (ATC --keep_dtype): " + list
            : !f.suggest_command.empty()
                ? "search the nodes to keep in FP32 (ATC --keep_dtype): " + f.suggest_command
                : "keep the first failing layer in FP32 (ATC --keep_dtype)";
    if (settings != nullptr && !f.keep_fp32.empty()) {
      settings->push_back({SettingKind::kAtcFlag, "--keep_dtype", list,
                           "precision: the nodes the --keep_dtype file lists (the suggested keep-FP32 set)"});
    }
  }
  Chart cos{"chart-precision-cosine",
            "Per-layer cosine similarity to the FP32 reference",
            ChartKind::kLine,
            "layer (execution order)",
            "cosine",
            {},
            {},
            {},
            {},
            false};
  Chart err{"chart-precision-error",
            "Per-layer max |error|",
            ChartKind::kLine,
            "layer (execution order)",
            "max |error|",
            {},
            {},
            {},
            {},
            false};
  cos.zero_based = false;
  Series c{"cosine", {}, {}}, e{"max |error|", {}, {}};
  for (size_t i = 0; i < f.layers.size(); ++i) {
    c.x.push_back(static_cast<double>(i));
    c.y.push_back(f.layers[i].cosine);
    e.x.push_back(static_cast<double>(i));
    e.y.push_back(f.layers[i].max_abs_error);
  }
  cos.series.push_back(std::move(c));
  err.series.push_back(std::move(e));
  cos.y_markers.push_back({fmt::format("threshold {}", f.cosine_threshold), f.cosine_threshold});
  if (first != nullptr) {
    cos.x_markers.push_back({"first failing: " + first->node, static_cast<double>(first_index)});
    err.x_markers.push_back({"first failing: " + first->node, static_cast<double>(first_index)});
  }
  if (!f.layers.empty()) {
    s.charts.push_back(std::move(cos));
    s.charts.push_back(std::move(err));
  }
  return s;
}

}  // namespace npugap::report
