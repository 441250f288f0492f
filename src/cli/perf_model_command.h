// The MODEL mode of `npugap perf` (lowering + iteration model), kept apart from the `--kernels`
// mode so that both can be registered on the one `perf` subcommand.
#pragma once

#include <string>

#include "cli/common.h"
#include "npugap/analysis/perf/iteration.h"

namespace npugap::cli {

struct PerfModelOptions {
  ModelOptions model;
  bool batch_given = false;
  bool train = false;
  std::string mode = "graph";
  std::string precision_mode;
  std::string optimizer = "momentum";
  std::string fusion_switch_file;
  int task_queue = 1;
  std::string jit_compile;  // "", "on", "off"
  bool no_prefetch = false;
  std::string cluster;
  int64_t ranks = 1;
  std::string compare_with;
  std::string trace;
  std::string kernels_out;  // --kernels-out: the lowered kernels in the calibration CSV format
  int top = 10;
};

// Adds MODEL and the model-mode flags to the `perf` subcommand (not --target / --json, which the
// subcommand shares between its modes).
void AddPerfModelOptions(CLI::App& cmd, PerfModelOptions& options);
// The Chrome trace event JSON (Perfetto / chrome://tracing) of a predicted step on `target_name`:
// the host's dispatch track and the device's kernel stream. Also written by `analyze --trace`.
std::string ChromeTraceJson(const analysis::perf::IterationResult& iteration, const std::string& target_name);

int RunPerfModel(const PerfModelOptions& options, const TargetOptions& target, bool json);

}  // namespace npugap::cli
