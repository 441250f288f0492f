// BuildReport: runs compatibility, precision, memory, performance and (with a cluster)
// communication on one IR and fills the report.
#include <algorithm>

#include <fmt/format.h>

#include "analyze_internal.h"
#include "npugap/analysis/compat/static_model.h"
#include "npugap/analysis/memory/shapes.h"
#include "npugap/comm/data_parallel.h"
#include "npugap/comm/simulate.h"
#include "npugap/report/build.h"

namespace npugap::report {
namespace {

namespace mem = analysis::memory;

constexpr int kSteps = 6;  // compat, precision, memory plan, largest batch, perf, communication

ModelSummary Summarize(const ir::Model& model) {
  ModelSummary m;
  m.path = model.path;
  m.nodes = static_cast<int64_t>(model.graph.nodes.size());
  m.opset = model.DefaultOpset();
  for (const auto& [v, t] : model.graph.initializers) {
    m.weight_bytes += static_cast<int64_t>(t.nbytes());
    if (ir::IsFloatingPoint(t.dtype())) m.parameters += t.numel();
  }
  return m;
}

// ATC's --precision_mode (v1) names mapped to the --precision_mode_v2 value with the same rule
// (ascend-facts §3.1 / §3.2 [OFF]); allow_fp32_to_fp16 has no v2 twin, so the check keeps the
// target's default for it.
std::string PrecisionModeV2(const std::string& mode) {
  if (mode == "force_fp16") return "fp16";
  if (mode == "must_keep_origin_dtype") return "origin";
  if (mode == "force_fp32") return "cube_fp16in_fp32out";
  if (mode == "allow_mix_precision" || mode == "allow_mix_precision_fp16") return "mixed_float16";
  if (mode == "allow_mix_precision_bf16") return "mixed_bfloat16";
  if (mode == "allow_fp32_to_fp16") return "";
  return mode;
}

Section RunCompat(const ir::Model& model, const target::Target& target, const AnalyzeOptions& o,
                  std::vector<Setting>* settings) {
  compat::CheckOptions options;
  options.precision_mode_v2 = PrecisionModeV2(o.precision_mode);
  auto result = compat::CheckModel(model, target, options);
  if (!result.ok()) return NotAvailableSection("compat", "Compatibility", result.status().message());
  const std::string atc = result->soc_version.empty()
                              ? std::string()
                              : compat::AtcCommandLine(model, target, model.path, result->precision_mode_v2);
  return CompatSection(*result, atc, settings);
}

Expected<MemoryFacts> MemoryFactsOf(const ir::Model& model, const target::Target& target,
                                    const AnalyzeOptions& o, const mem::ShapeMap& shapes, int64_t batch) {
  const ir::Graph& g = model.graph;
  MemoryFacts f;
  f.batch = batch;
  f.budget = {target.memory.device.value, target.memory.reserve.value};
  f.optimizer = o.optimizer;
  NPUGAP_ASSIGN_OR_RETURN(f.inference, mem::PlanInference(g, shapes, target));
  NPUGAP_ASSIGN_OR_RETURN(f.timeline, ComputeMemoryTimeline(g, shapes, target));
  NPUGAP_ASSIGN_OR_RETURN(mem::Optimizer optimizer, mem::ParseOptimizer(o.optimizer));
  const mem::TrainingOptions train_options{optimizer, mem::Amp::kNone, std::max(o.ranks, 1)};
  if (o.train) {
    NPUGAP_ASSIGN_OR_RETURN(auto t, mem::PlanTraining(g, shapes, target, train_options));
    f.training = t;
  }
  if (o.progress) o.progress("largest batch", 3, kSteps);
  // How dims scale with the batch: the same model imported at twice the batch.
  if (!o.load_at_batch) {
    f.max_batch_note = "not searched";
    return f;
  }
  NPUGAP_ASSIGN_OR_RETURN(ir::Model twice, o.load_at_batch(batch * 2));
  auto shapes2 = mem::StaticShapes(twice.graph);
  if (!shapes2.ok()) {
    f.max_batch_note = shapes2.status().message();
    return f;
  }
  auto scaling = mem::BatchScaling::Derive(shapes, batch, *shapes2, batch * 2);
  if (!scaling.ok()) {
    f.max_batch_note = scaling.status().message();
    return f;
  }
  if (!scaling->depends_on_batch()) {
    f.max_batch_note = "the model's batch is fixed in the file; re-export it with a symbolic batch";
    return f;
  }
  const int64_t limit = mem::BatchSearchLimit(g, shapes, batch, f.budget);
  mem::FitPlan plan;
  if (o.train) plan.training = train_options;
  const auto fits = mem::FitsAtBatch(
      g, [&scaling](int64_t b) { return scaling->At(b); }, target, plan, f.budget);
  NPUGAP_ASSIGN_OR_RETURN(int64_t largest, mem::LargestFittingBatch(fits, limit));
  f.max_batch = largest;
  return f;
}

Section RunMemory(const ir::Model& model, const target::Target& target, const AnalyzeOptions& o,
                  std::vector<Setting>* settings) {
  auto shapes = mem::StaticShapes(model.graph);
  if (!shapes.ok()) {
    return NotAvailableSection(
        "memory", "Memory",
        shapes.status().message() + " (npugap memory --run-shapes takes them from a run)");
  }
  int64_t batch = o.batch;
  for (size_t i = 0; batch <= 0 && i < model.graph.inputs.size(); ++i) {
    const auto& s = (*shapes)[static_cast<size_t>(model.graph.inputs[i])];
    if (s && !s->empty() && (*s)[0] > 0) batch = (*s)[0];
  }
  if (batch <= 0) batch = 1;
  auto facts = MemoryFactsOf(model, target, o, *shapes, batch);
  if (!facts.ok()) return NotAvailableSection("memory", "Memory", facts.status().message());
  return MemorySection(*facts, settings);
}

Section RunComm(const ir::Model& model, const AnalyzeOptions& o,
                const std::optional<internal::StepCompute>& step, std::vector<Setting>* settings) {
  const comm::Cluster& cluster = *o.cluster;
  CommFacts f;
  f.cluster = cluster.name;
  f.ranks = o.ranks;
  // Every float initializer is a trainable weight whose gradient is all-reduced (as `comm dp --model`).
  for (const auto& [v, t] : model.graph.initializers) {
    if (ir::IsFloatingPoint(t.dtype())) f.grad_bytes += static_cast<double>(t.nbytes());
  }
  if (!(f.grad_bytes > 0))
    return NotAvailableSection("comm", "Communication", "the model has no float weights");
  // Rank counts below --ranks for the curve: 2 and 4 where the cluster allows them, then the
  // issue's 8 .. 16,384.
  std::vector<int> counts;
  for (int n : {2, 4}) {
    if (n < o.ranks && comm::MakeLayout(cluster, n).ok()) counts.push_back(n);
  }
  for (int n : comm::DefaultDpRankCounts(cluster)) {
    if (n < o.ranks && n > 4) counts.push_back(n);
  }
  counts.push_back(o.ranks);
  comm::SimOptions sim;
  if (!step) {
    f.scaling_note =
        o.train ? "scaling efficiency needs the performance section's backward time, which is not available"
                : "scaling efficiency needs a training step's backward time (--train)";
  }
  f.buffsize_mb = cluster.hccl.buffsize_mb.value;
  f.buffsize_source = cluster.hccl.buffsize_mb.source;
  comm::CollectiveSpec spec;
  spec.op = comm::Op::kAllReduce;
  spec.bytes = f.grad_bytes;
  for (int n : counts) {
    auto r = comm::SimulateCollective(cluster, n, spec, sim);
    if (!r.ok()) return NotAvailableSection("comm", "Communication", r.status().message());
    std::optional<double> efficiency;
    if (step) {
      // DDP-style bucketed all-reduce overlapped with the predicted backward (comm/data_parallel.h).
      comm::DpOptions dp;
      dp.grad_bytes = f.grad_bytes;
      dp.backward_s = step->backward_s;
      dp.forward_s = step->forward_s;
      dp.sim = sim;
      auto d = comm::ModelDataParallelStep(cluster, n, dp);
      if (!d.ok()) return NotAvailableSection("comm", "Communication", d.status().message());
      efficiency = d->scaling_efficiency;
    }
    f.rows.push_back({n, r->time_s, r->busbw_gbps, r->algo, efficiency});
    if (n == o.ranks) {
      auto t = comm::AnalyzeTimeouts(cluster, *r, sim, comm::TimeoutSettings{});
      if (!t.ok()) return NotAvailableSection("comm", "Communication", t.status().message());
      f.timeouts = *t;
    }
  }
  return CommSection(f, settings);
}

}  // namespace

Expected<Report> BuildReport(const ir::Model& model, const target::Target& target,
                             const AnalyzeOptions& given) {
  // Without --precision-mode, precision, compat and the lowering all use one mode: for inference
  // the deployment is an ATC-compiled graph, so ATC's default (force_fp16); a training step runs
  // under the framework (torch_npu's ACL_PRECISION_MODE default, e.g. must_keep_origin_dtype on A2).
  AnalyzeOptions o = given;
  if (o.precision_mode.empty()) {
    if (o.train) {
      o.precision_mode = target.framework.default_precision_mode.value;
    } else if (target.compiler) {
      o.precision_mode = target.compiler->precision_mode_default.value;
    }
  }
  Report r;
  r.tool_version = "0.1.0";
  r.model = Summarize(model);
  r.config.target = target.name;
  r.config.target_description = target.description;
  r.config.dev_target = o.dev_target != nullptr ? o.dev_target->name : "";
  r.config.batch = o.batch > 0 ? o.batch : internal::FileBatch(model);
  r.config.dev_batch = o.dev_model != nullptr ? o.dev_batch : r.config.batch;
  r.config.train = o.train;
  r.config.optimizer = o.train ? o.optimizer : "";
  r.config.precision_mode = o.precision_mode;  // the mode used, defaulted or given
  r.config.cluster = o.cluster != nullptr ? o.cluster->name : "";
  r.config.ranks = o.cluster != nullptr ? o.ranks : 0;
  r.config.samples = o.inputs_given ? 1 : o.samples;
  for (const auto& w : target.warnings) r.warnings.push_back(target.name + ": " + w);
  for (const auto& w : model.warnings) r.warnings.push_back(model.path + ": " + w);

  auto skipped = [&](const char* key) {
    return std::find(o.skip.begin(), o.skip.end(), key) != o.skip.end();
  };
  auto skip_section = [](const char* key, const char* title) {
    return NotAvailableSection(key, title, fmt::format("skipped (--skip {})", key));
  };
  if (o.progress) o.progress("compatibility", 0, kSteps);
  r.compat = skipped("compat") ? skip_section("compat", "Compatibility")
                               : RunCompat(model, target, o, &r.recommendations);
  if (o.progress) o.progress("precision", 1, kSteps);
  r.precision = skipped("precision") ? skip_section("precision", "Precision")
                                     : internal::RunPrecision(model, target, o, &r.recommendations);
  if (o.progress) o.progress("memory plan", 2, kSteps);
  r.memory =
      skipped("memory") ? skip_section("memory", "Memory") : RunMemory(model, target, o, &r.recommendations);
  if (o.progress) o.progress("performance", 4, kSteps);
  std::optional<internal::StepCompute> step;
  r.perf = skipped("perf") ? skip_section("perf", "Performance")
                           : internal::RunPerf(model, target, o, &r.recommendations, &step);
  if (skipped("comm")) {
    r.comm = skip_section("comm", "Communication");
  } else if (o.cluster != nullptr) {
    if (o.progress) o.progress("communication", 5, kSteps);
    r.comm = RunComm(model, o, step, &r.recommendations);
  } else {
    r.comm = NotAvailableSection("comm", "Communication", "no cluster given (--cluster NAME --ranks N)");
  }
  if (o.progress) o.progress("done", kSteps, kSteps);
  return r;
}

namespace internal {

int64_t FileBatch(const ir::Model& model) {
  for (int id : model.graph.inputs) {
    const auto& dims = model.graph.values[static_cast<size_t>(id)].type.dims;
    if (dims && !dims->empty() && (*dims)[0].is_static() && (*dims)[0].value > 0) return (*dims)[0].value;
  }
  return 0;
}

}  // namespace internal
}  // namespace npugap::report
