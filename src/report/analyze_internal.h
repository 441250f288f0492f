// The analysis runs behind BuildReport, one file per section that needs more than a few lines.
#pragma once

#include <optional>
#include <vector>

#include "npugap/analysis/perf/iteration.h"
#include "npugap/report/build.h"

namespace npugap::report::internal {

// The leading dim of the first input with a static one: the batch a file was exported at (0: none).
int64_t FileBatch(const ir::Model& model);

// Precision plan for the mode, emulated run vs the FP32 reference over the samples (as
// `npugap precision`), turned into the section.
Section RunPrecision(const ir::Model& model, const target::Target& target, const AnalyzeOptions& options,
                     std::vector<Setting>* settings);

// What the comm section needs from the perf analysis: forward / backward compute of one step on
// the target (training only).
struct StepCompute {
  double forward_s = 0;
  double backward_s = 0;
};

// Lowering + iteration model on the target (graph, and eager for the eager -> graph gain) and on
// the dev target (graph), turned into the section. `timeline` gets the target's graph-mode run.
Section RunPerf(const ir::Model& model, const target::Target& target, const AnalyzeOptions& options,
                std::vector<Setting>* settings, std::optional<StepCompute>* step);

}  // namespace npugap::report::internal
