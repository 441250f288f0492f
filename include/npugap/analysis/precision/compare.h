// Layer-wise precision comparison (`npugap precision`): the reference (FP32, or FP64) and the
// emulated target run on the same inputs; every floating-point tensor a node produces is compared
// with msprobe's metrics (metrics.h) over all samples, with a verdict per tensor, the first failing
// tensor in topological order, and top-1 / top-5 / accuracy for outputs that look like class scores.
//
// The comparison itself takes its two runs as functions (TracedRun), so it is tested without the
// emulator; ComparePrecision wires in exec::Executor and precision::EmulatedRunner.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "npugap/analysis/precision/emulate.h"
#include "npugap/analysis/precision/metrics.h"
#include "npugap/analysis/precision/plan.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::precision {

// One run of the model on one input set; `observer` (may be null) sees every node of the main
// graph with its outputs, exactly as written in the model (no fusion).
using TracedRun = std::function<Expected<std::vector<ir::Tensor>>(const std::vector<ir::Tensor>& inputs,
                                                                  const EmulationObserver& observer)>;

// ---- samples (compare_samples.cc) --------------------------------------------------------------
// `--samples N` counts samples, i.e. rows along the batch dimension, and runs them in whole input
// sets: ceil(N / rows) random sets with seeds seed, seed+1, ... A set's rows are the leading dim
// that every input of rank >= 1 shares; without one (or at batch 1) a set is one sample, as before.
int64_t RowsPerInputSet(const std::vector<ir::Tensor>& inputs);
Expected<std::vector<std::vector<ir::Tensor>>> RandomSampleSets(const ir::Graph& graph, uint64_t seed,
                                                                int samples);

// The reference's floating-point node outputs of every input set, by value index of the model.
struct ReferenceTrace {
  std::vector<std::unordered_map<int, ir::Tensor>> samples;
};
Expected<ReferenceTrace> TraceReference(const ir::Model& model, const TracedRun& reference,
                                        const std::vector<std::vector<ir::Tensor>>& input_sets);

struct CompareSettings {
  Thresholds thresholds;
  // Labels of the rows of the first class-score output over all samples (int64), or empty.
  std::vector<int64_t> labels;
};

struct TensorComparison {
  std::string name;  // the value's name
  std::string node;  // the node that produced it
  std::string op_type;
  int node_index = -1;
  bool is_output = false;
  ir::Shape shape;
  std::string target_format;  // the plan's output format, filled in by the caller that has the plan
  TensorMetrics metrics;
  bool pass = true;
};

// An output that looks like class scores: float, rank 2 [rows, classes], classes >= 2.
struct ClassScores {
  std::string output;
  int64_t rows = 0;  // over all samples
  int64_t classes = 0;
  int top_k = 5;                                              // min(5, classes)
  double top1_agreement = 0;                                  // share of rows whose arg-max agrees
  double top5_overlap = 0;                                    // mean |top-k(target) ∩ top-k(reference)| / k
  std::optional<double> reference_accuracy, target_accuracy;  // with labels (first such output)
};

// A NaN or INF in an input set: reported, and the comparison still runs.
struct NonFiniteInput {
  std::string input;
  int sample = 0;
  int64_t nan = 0, inf = 0;
};

struct PrecisionComparison {
  int input_sets = 0;                     // reference + emulated runs (batches)
  int64_t samples = 0;                    // rows compared: the sets' RowsPerInputSet summed
  std::vector<TensorComparison> tensors;  // node outputs in topological order
  std::optional<size_t> first_failing;    // index into tensors
  std::vector<size_t> outputs;            // indices into tensors, in graph output order
  std::vector<ClassScores> classification;
  std::vector<NonFiniteInput> non_finite_inputs;
  bool outputs_pass = true;                      // every graph output passes
  std::vector<ir::Tensor> first_sample_outputs;  // the target's outputs for sample 0
};

// The target's runs against a reference traced beforehand (kept, so that --suggest-keep compares
// many plans with one trace).
Expected<PrecisionComparison> CompareWithReference(const ir::Model& model, const ReferenceTrace& reference,
                                                   const TracedRun& target,
                                                   const std::vector<std::vector<ir::Tensor>>& input_sets,
                                                   const CompareSettings& settings);

// The same comparison, streamed: per input set one reference run, then the target run, each
// reference tensor dropped as soon as it is compared, so memory holds one set's reference at most
// (not every set's). Same metrics, bit for bit, as TraceReference + CompareWithReference.
Expected<PrecisionComparison> CompareStreamed(const ir::Model& model, const TracedRun& reference,
                                              const TracedRun& target,
                                              const std::vector<std::vector<ir::Tensor>>& input_sets,
                                              const CompareSettings& settings);

// ---- wiring to the executor and the emulator (compare_runners.cc) -----------------------------
enum class ReferencePrecision { kFP32, kFP64 };

// The FP32 executor, unfused; for kFP64 it runs PromoteToFloat64(model) on inputs converted to
// float64 (the returned function owns that copy).
Expected<TracedRun> MakeReferenceRun(const ir::Model& model, ReferencePrecision precision, int num_threads);
// The emulated target under `plan`, unfused, so every original node is observed.
Expected<TracedRun> MakeTargetRun(const ir::Model& model, PrecisionPlan plan, int num_threads);

// A copy of the model in which every float32 value, initializer, Cast / Constant / ConstantOfShape
// attribute becomes float64 (subgraphs included), for an FP64 reference run on the same kernels.
Expected<ir::Model> PromoteToFloat64(const ir::Model& model);
// float32 / float16 / bfloat16 tensors converted to float64; others shared unchanged.
std::vector<ir::Tensor> PromoteInputs(const std::vector<ir::Tensor>& inputs);

}  // namespace npugap::analysis::precision
