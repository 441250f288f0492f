// The performance section of `npugap analyze`: the kernel sequence the graph compiler would run
// (analysis/perf/lower.h) and the iteration model (iteration.h) on the target in graph mode and in
// eager mode (for the eager -> graph gain), and on the dev target as `npugap perf --compare-with`
// runs it (graph mode, the model's own dtypes unless a precision mode is given).
#include <fmt/format.h>

#include "analyze_internal.h"
#include "npugap/analysis/perf/lower/lower.h"

namespace npugap::report::internal {
namespace {

namespace perf = analysis::perf;

// analyze's --optimizer names (the memory analysis's) mapped to the lowering's optimizer kernels:
// SGD with or without momentum runs ApplyMomentum-like update kernels; adam and adamw are the
// lowering's own names.
Expected<perf::Optimizer> PerfOptimizer(const std::string& name) {
  if (name == "sgd" || name == "momentum") return perf::Optimizer::kMomentum;
  return perf::ParseOptimizer(name);
}

Expected<perf::IterationResult> Predict(const ir::Model& model, const target::Target& target,
                                        const AnalyzeOptions& o, perf::ExecMode mode,
                                        const std::string& precision) {
  perf::LowerOptions lo;
  lo.train = o.train;
  lo.eager = mode == perf::ExecMode::kEager;
  lo.precision_mode = precision;
  NPUGAP_ASSIGN_OR_RETURN(lo.optimizer, PerfOptimizer(o.optimizer));
  NPUGAP_ASSIGN_OR_RETURN(perf::Lowering lowering, perf::Lower(model, target, lo));
  perf::IterationOptions io;
  io.mode = mode;
  return perf::SimulateIteration(lowering, target, io, &perf::PredictKernel);
}

std::vector<TimePart> Parts(const perf::Breakdown& dev, const perf::Breakdown& dep) {
  return {{"cube", dev.cube_ms, dep.cube_ms},
          {"vector", dev.vector_ms, dep.vector_ms},
          {"TransData/Cast", dev.transdata_cast_ms, dep.transdata_cast_ms},
          {"AI CPU", dev.aicpu_ms, dep.aicpu_ms},
          {"dispatch", dev.dispatch_ms, dep.dispatch_ms},
          {"H2D", dev.h2d_ms, dep.h2d_ms},
          {"communication", dev.comm_ms, dep.comm_ms}};
}

}  // namespace

Section RunPerf(const ir::Model& model, const target::Target& target, const AnalyzeOptions& o,
                std::vector<Setting>* settings, std::optional<StepCompute>* step) {
  if (o.dev_target == nullptr) {
    return NotAvailableSection("perf", "Performance", "no dev target to compare with (--dev-target NAME)");
  }
  auto graph = Predict(model, target, o, perf::ExecMode::kGraph, o.precision_mode);
  if (!graph.ok()) return NotAvailableSection("perf", "Performance", graph.status().message());
  auto eager = Predict(model, target, o, perf::ExecMode::kEager, o.precision_mode);
  if (!eager.ok()) return NotAvailableSection("perf", "Performance", eager.status().message());
  // --dev-batch: the dev environment runs its own batch (the seed's cpu-dev at 32 vs the NPU at 64).
  const ir::Model& dev_model = o.dev_model != nullptr ? *o.dev_model : model;
  auto dev = Predict(dev_model, *o.dev_target, o, perf::ExecMode::kGraph,
                     o.precision_mode.empty() ? "must_keep_origin_dtype" : o.precision_mode);
  if (!dev.ok())
    return NotAvailableSection("perf", "Performance",
                               dev.status().message() + " (on " + o.dev_target->name + ")");
  PerfFacts f;
  f.dev_target = o.dev_target->name;
  f.dev_ms = dev->iteration_ms;
  f.deploy_ms = graph->iteration_ms;
  f.deploy_batch = o.batch > 0 ? o.batch : FileBatch(model);
  f.dev_batch = o.dev_model != nullptr ? o.dev_batch : f.deploy_batch;
  f.eager_ms = eager->iteration_ms;
  f.breakdown = Parts(dev->breakdown, graph->breakdown);
  for (const auto& k : perf::TopKernels(*graph, 10)) {
    f.top_kernels.push_back({k.name, k.op_type, k.time_us, std::string(perf::BoundName(k.bound))});
  }
  f.max_slowdown = o.max_slowdown;
  if (!graph->unknown_op_types.empty()) {
    std::string names;
    for (const auto& n : graph->unknown_op_types) names += (names.empty() ? "" : ", ") + n;
    f.notes.push_back("kernel types without a cost rule (counted as 0): " + names);
  }
  if (o.train) {
    StepCompute c;
    for (const auto& k : graph->kernels) {
      if (k.phase == perf::Phase::kForward) c.forward_s += k.time_us * 1e-6;
      if (k.phase == perf::Phase::kBackward) c.backward_s += k.time_us * 1e-6;
    }
    *step = c;
  }
  if (o.deploy_timeline != nullptr) *o.deploy_timeline = *graph;
  return PerfSection(f, settings);
}

}  // namespace npugap::report::internal
