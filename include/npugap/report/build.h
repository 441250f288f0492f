// Filling the report: one builder per section turns an analysis result into verdict, metrics,
// first cause, fix, chart series and recommended settings (pure functions), and BuildReport runs
// the analyses that have landed on one IR. Verdict rules are in docs/report.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/analysis/compat/compat.h"
#include "npugap/analysis/memory/inference.h"
#include "npugap/analysis/memory/max_batch.h"
#include "npugap/analysis/memory/training.h"
#include "npugap/analysis/perf/iteration.h"
#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"
#include "npugap/comm/faults.h"
#include "npugap/ir/graph.h"
#include "npugap/report/report.h"
#include "npugap/target/target.h"

namespace npugap::report {

// A section whose analysis did not run: verdict not_available and the reason, nothing else.
Section NotAvailableSection(std::string key, std::string title, std::string reason);

// ---- compatibility ----------------------------------------------------------------------------
// `atc_command`: the ATC command line for the model (empty when the target has no ATC).
Section CompatSection(const compat::CheckResult& result, const std::string& atc_command,
                      std::vector<Setting>* settings);

// ---- memory -----------------------------------------------------------------------------------
// Bytes held at each step of the execution order: weights (laid out) + live activation buffers +
// that step's TransData workspace. The curve under the static plan's arena.
struct MemoryTimeline {
  std::vector<std::string> nodes;  // node name per step
  std::vector<int64_t> bytes;      // per step
};
Expected<MemoryTimeline> ComputeMemoryTimeline(const ir::Graph& graph,
                                               const analysis::memory::ShapeMap& shapes,
                                               const target::Target& target);

struct MemoryFacts {
  int64_t batch = 0;
  analysis::memory::Budget budget;
  analysis::memory::InferenceReport inference;
  std::optional<analysis::memory::TrainingReport> training;  // with --train
  std::string optimizer;
  std::optional<int64_t> max_batch;  // largest batch for the run that is judged
  std::string max_batch_note;        // why there is none
  MemoryTimeline timeline;
};
// Warning headroom: a plan within 10% of the available bytes leaves no room for the caching
// allocator's fragmentation (docs/report.md); a rule of this report, not a measured constant.
constexpr double kMemoryWarnFraction = 0.9;
Section MemorySection(const MemoryFacts& facts, std::vector<Setting>* settings);

// ---- communication ----------------------------------------------------------------------------
struct CommRow {
  int ranks = 0;
  double allreduce_s = 0;
  double busbw_gbps = 0;
  std::string algo;
  // Data-parallel step model (comm::ModelDataParallelStep) once the perf analysis gives the
  // backward time; empty until then.
  std::optional<double> scaling_efficiency;
};
struct CommFacts {
  std::string cluster;
  int ranks = 0;
  double grad_bytes = 0;
  std::vector<CommRow> rows;     // rank counts up to `ranks`, ascending; the last is `ranks`
  comm::TimeoutReport timeouts;  // of the all-reduce at `ranks`
  std::string scaling_note;      // why the rows have no scaling efficiency (when they have none)
  double buffsize_mb = 0;        // HCCL_BUFFSIZE the simulation used
  std::string buffsize_source;
};
Section CommSection(const CommFacts& facts, std::vector<Setting>* settings);

// ---- precision ----------------------------------------------------------------------------------
struct LayerError {
  std::string node;
  std::string op_type;
  double cosine = 1;         // worst over the samples, emulated target vs FP32 reference
  double max_abs_error = 0;  // worst over the samples
};
struct PrecisionFacts {
  std::string mode;                // canonical precision mode the emulation ran
  int samples = 0;                 // rows compared (batches x rows per batch)
  int batches = 0;                 // input sets run (one reference + one emulated run each)
  std::vector<LayerError> layers;  // execution order
  double output_cosine = 1;        // worst model output
  double output_max_abs_error = 0;
  double cosine_threshold = 0;  // from the precision analysis (with its source)
  std::string threshold_source;
  std::vector<std::string> keep_fp32;  // the analysis's suggested keep-FP32 node list
  // Without a keep-FP32 list: the `npugap precision --suggest-keep` command line that searches it.
  std::string suggest_command;
  std::vector<std::string> notes;  // e.g. tensors left off the chart (cosine N/A)
};
// fail: the output's cosine is below the threshold; warning: some layer is, the output is not;
// ok otherwise. The first failing layer is marked on the per-layer chart.
Section PrecisionSection(const PrecisionFacts& facts, std::vector<Setting>* settings);

// ---- performance --------------------------------------------------------------------------------
struct TimePart {
  std::string name;  // "cube", "vector", "memory", "TransData", "AI CPU", "host dispatch", ...
  double dev_ms = 0;
  double deploy_ms = 0;
};
struct KernelTime {
  std::string name;
  std::string op_type;
  double time_us = 0;
  std::string bound;  // perf::BoundName
};
struct PerfFacts {
  std::string dev_target;
  double dev_ms = 0;      // iteration time in the dev environment, at dev_batch
  double deploy_ms = 0;   // on the target, compiled graph, at deploy_batch
  int64_t dev_batch = 0;  // 0: not known (then only iteration times are compared)
  int64_t deploy_batch = 0;
  std::optional<double> eager_ms;  // on the target, eager mode (for the eager -> graph gain)
  std::vector<TimePart> breakdown;
  std::vector<KernelTime> top_kernels;  // largest first
  std::optional<double> max_slowdown;   // --max-slowdown
  std::vector<std::string> notes;
};
// slowdown = deploy / dev iteration time at one batch, or deploy / dev time per sample when the
// batches differ (an iteration of 64 samples is not comparable with one of 32). With
// --max-slowdown: fail when the slowdown exceeds it. Otherwise warning when the target is slower
// than the dev environment, ok when not.
Section PerfSection(const PerfFacts& facts, std::vector<Setting>* settings);

// ---- the whole report -------------------------------------------------------------------------
struct AnalyzeOptions {
  int64_t batch = 0;  // the batch the model was bound to (0: as in the file)
  bool train = false;
  std::string optimizer = "adam";
  std::string precision_mode;      // empty: the target's default (precision plan and lowering)
  std::string op_select_implmode;  // empty: high_performance, ATC's default (precision plan)
  const target::Target* dev_target = nullptr;
  // --dev-batch: the model bound to the dev environment's batch, for the dev-target prediction;
  // null: the deploy batch. dev_batch is that batch (0: the deploy batch).
  const ir::Model* dev_model = nullptr;
  int64_t dev_batch = 0;
  const comm::Cluster* cluster = nullptr;  // null: no communication section
  int ranks = 0;
  // Precision samples (rows along the batch dimension), run in ceil(samples / batch) random
  // batches with seeds seed, seed+1, ... (precision::RandomSampleSets, as `npugap precision`).
  int samples = 2;
  uint64_t seed = 0;
  bool inputs_given = false;  // `inputs` is the one precision sample (--inputs)
  std::vector<ir::Tensor> inputs;
  int threads = 1;  // executor threads of the precision runs
  // Section keys not to run (--skip): the section says so; precision over many samples and large
  // batches is the long step.
  std::vector<std::string> skip;
  std::optional<double> max_slowdown;  // --max-slowdown
  // When set, receives the target's predicted timeline (for --trace).
  analysis::perf::IterationResult* deploy_timeline = nullptr;
  // Imports the model again at another batch (the largest-batch search derives how shapes scale).
  std::function<Expected<ir::Model>(int64_t batch)> load_at_batch;
  // Called before each step; `done` of `total` steps finished (a progress bar on a TTY).
  std::function<void(std::string_view step, int done, int total)> progress;
};

Expected<Report> BuildReport(const ir::Model& model, const target::Target& target,
                             const AnalyzeOptions& options);

}  // namespace npugap::report
