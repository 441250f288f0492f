// `npugap perf MODEL --target T --batch N [--train] [--mode graph|eager] ...`: the model's kernel
// sequence on the target (analysis/perf/lower.h), the predicted iteration time and where it goes
// (analysis/perf/iteration.h), optionally next to the same model on a development target, and a
// Chrome-trace timeline. The `--kernels FILE.csv` mode of the same subcommand is in
// perf_command.cc.
#include "cli/perf_model_command.h"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/lower/lower.h"
#include "npugap/analysis/perf/lower/lower_csv.h"
#include "npugap/comm/cluster.h"
#include "npugap/onnx/io_files.h"

namespace npugap::cli {
namespace {

namespace perf = analysis::perf;

struct Prediction {
  target::Target target;
  perf::Lowering lowering;
  perf::IterationResult iteration;
};

Expected<Prediction> Predict(const ir::Model& model, const target::Target& target, const PerfModelOptions& o,
                             perf::ExecMode mode, const comm::Cluster* cluster,
                             const std::string& precision) {
  perf::LowerOptions lo;
  lo.train = o.train;
  lo.eager = mode == perf::ExecMode::kEager;
  lo.precision_mode = precision;
  if (!o.fusion_switch_file.empty()) {
    NPUGAP_ASSIGN_OR_RETURN(lo.fusion, perf::LoadFusionSwitchFile(o.fusion_switch_file));
  }
  NPUGAP_ASSIGN_OR_RETURN(lo.optimizer, perf::ParseOptimizer(o.optimizer));
  NPUGAP_ASSIGN_OR_RETURN(perf::Lowering lowering, perf::Lower(model, target, lo));
  perf::IterationOptions io;
  io.mode = mode;
  io.task_queue = o.task_queue != 0;
  if (o.jit_compile == "on") io.jit_compile = true;
  if (o.jit_compile == "off") io.jit_compile = false;
  io.prefetch = !o.no_prefetch;
  io.cluster = cluster;
  io.ranks = static_cast<int>(o.ranks);
  NPUGAP_ASSIGN_OR_RETURN(perf::IterationResult it,
                          perf::SimulateIteration(lowering, target, io, &perf::PredictKernel));
  return Prediction{target, std::move(lowering), std::move(it)};
}

nlohmann::json BreakdownJson(const perf::Breakdown& b) {
  return {{"cube", b.cube_ms},         {"vector", b.vector_ms},     {"transdata_cast", b.transdata_cast_ms},
          {"aicpu", b.aicpu_ms},       {"dispatch", b.dispatch_ms}, {"h2d", b.h2d_ms},
          {"communication", b.comm_ms}};
}

std::string ChromeTrace(const Prediction& p) { return ChromeTraceJson(p.iteration, p.target.name); }

int64_t ModelBatch(const ir::Model& m, int64_t given) {
  if (given > 0) return given;
  for (int v : m.graph.inputs) {
    const auto& dims = m.graph.values[static_cast<size_t>(v)].type.dims;
    if (dims && !dims->empty() && (*dims)[0].is_static()) return (*dims)[0].value;
  }
  return 1;
}

}  // namespace

// Chrome trace event format (opens in Perfetto / chrome://tracing): one process for the host's
// dispatch thread, one for the device's kernel stream; times in microseconds.
std::string ChromeTraceJson(const perf::IterationResult& iteration, const std::string& target_name) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "host dispatch"}}}});
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 2}, {"args", {{"name", "device " + target_name}}}});
  const bool eager = iteration.mode == perf::ExecMode::kEager;
  for (const auto& k : iteration.kernels) {
    if (eager) {
      events.push_back({{"name", k.op_type},
                        {"cat", "dispatch"},
                        {"ph", "X"},
                        {"pid", 1},
                        {"tid", 1},
                        {"ts", k.host_start_us},
                        {"dur", k.host_us},
                        {"args", {{"node", k.name}}}});
    }
    events.push_back({{"name", k.op_type},
                      {"cat", std::string(perf::CategoryName(k.category))},
                      {"ph", "X"},
                      {"pid", 2},
                      {"tid", 1},
                      {"ts", k.start_us},
                      {"dur", k.time_us},
                      {"args",
                       {{"node", k.name},
                        {"phase", std::string(perf::PhaseName(k.phase))},
                        {"bound", std::string(perf::BoundName(k.bound))}}}});
  }
  if (!eager) {  // graph mode: the host launches the whole graph once
    events.push_back({{"name", "graph launch"},
                      {"cat", "dispatch"},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", 0},
                      {"dur", iteration.breakdown.dispatch_ms * 1e3}});
  }
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

void AddPerfModelOptions(CLI::App& cmd, PerfModelOptions& o) {
  cmd.add_option("model", o.model.model_path, "ONNX model file (lowering + iteration model)");
  o.model.fold_shapes = true;  // the deployed graph: ATC folds shape sub-graphs
  cmd.add_option("--shape", o.model.shapes, "bind an input's shape, NAME=1x3x224x224 (repeatable)");
  cmd.add_option("--batch", o.model.batch, "bind every input's leading symbolic dim to N");
  cmd.add_flag("--train", o.train, "a training step: loss, backward and optimizer kernels");
  cmd.add_option("--mode", o.mode, "graph (whole graph sunk, default) | eager (torch_npu single-op)");
  cmd.add_option("--precision-mode", o.precision_mode,
                 "ATC / torch_npu precision mode (default: the target's)");
  cmd.add_option("--optimizer", o.optimizer, "momentum (default) | lamb | adam | adamw (with --train)");
  cmd.add_option("--fusion-switch-file", o.fusion_switch_file, "ATC --fusion_switch_file (text or JSON)");
  cmd.add_option("--task-queue", o.task_queue, "TASK_QUEUE_ENABLE for eager mode: 0 | 1 (default 1)");
  cmd.add_option("--jit-compile", o.jit_compile, "eager first-run compile: on | off (default: the target's)");
  cmd.add_flag("--no-prefetch", o.no_prefetch, "the input copy does not overlap the previous step");
  cmd.add_option("--cluster", o.cluster, "with --ranks: all-reduce the gradients on this cluster");
  cmd.add_option("--ranks", o.ranks, "data-parallel ranks (default 1)");
  cmd.add_option("--compare-with", o.compare_with,
                 "the same model on a development target: cpu-dev | h200 | ...");
  cmd.add_option("--trace", o.trace, "write a Chrome-trace JSON timeline (Perfetto)");
  cmd.add_option(
      "--kernels-out", o.kernels_out,
      "write the lowered kernels as calibration CSV (op_type, block_dim, inputs, outputs, time_us)");
  cmd.add_option("--top", o.top, "kernels listed (default 10)");
}

int RunPerfModel(const PerfModelOptions& o, const TargetOptions& target_options, bool json) {
  auto mode = perf::ParseExecMode(o.mode);
  if (!mode.ok()) return ReportError(mode.status());
  if (o.batch_given && o.model.batch <= 0) {
    return ReportError(Status::InvalidArgument(fmt::format("--batch {}: must be positive", o.model.batch)));
  }
  if (o.task_queue != 0 && o.task_queue != 1) {
    return ReportError(
        Status::InvalidArgument(fmt::format("--task-queue {}: expected 0 or 1", o.task_queue)));
  }
  if (!o.jit_compile.empty() && o.jit_compile != "on" && o.jit_compile != "off") {
    return ReportError(
        Status::InvalidArgument(fmt::format("--jit-compile '{}': expected on or off", o.jit_compile)));
  }
  if (o.ranks < 1)
    return ReportError(Status::InvalidArgument(fmt::format("--ranks {}: must be >= 1", o.ranks)));
  if (o.ranks > 1 && o.cluster.empty()) {
    return ReportError(Status::InvalidArgument("--ranks > 1 needs --cluster NAME (see npugap comm)"));
  }
  if (o.top < 0) return ReportError(Status::InvalidArgument(fmt::format("--top {}: must be >= 0", o.top)));
  if (auto opt = perf::ParseOptimizer(o.optimizer); !opt.ok()) return ReportError(opt.status());
  auto target = LoadTargetWithOptions(target_options);
  if (!target.ok()) return ReportError(target.status());
  for (const auto& w : target->warnings) std::cerr << "npugap: warning: " << w << "\n";
  std::optional<target::Target> reference;
  if (!o.compare_with.empty()) {
    auto r = target::LoadTarget(o.compare_with);
    if (!r.ok()) return ReportError(r.status().WithContext("--compare-with"));
    reference = *r;
  }
  std::optional<comm::Cluster> cluster;
  if (!o.cluster.empty()) {
    auto c = comm::LoadCluster(o.cluster, comm::FindClustersDir());
    if (!c.ok()) return ReportError(c.status().WithContext("--cluster"));
    cluster = *c;
  }
  auto model = LoadModelWithOptions(o.model);
  if (!model.ok()) return ReportError(model.status());
  auto p = Predict(*model, *target, o, *mode, cluster ? &*cluster : nullptr, o.precision_mode);
  if (!p.ok()) return ReportError(p.status().WithContext(model->path));
  std::optional<Prediction> ref;
  if (reference) {
    // The development target runs the model as written: fp32 for training and inference, unless
    // the user's precision mode keeps it in a lower one (the same name applies on both).
    auto r = Predict(*model, *reference, o, *mode, nullptr,
                     o.precision_mode.empty() ? "must_keep_origin_dtype" : o.precision_mode);
    if (!r.ok()) return ReportError(r.status().WithContext(model->path + " on " + reference->name));
    ref = std::move(*r);
  }
  if (!o.trace.empty()) {
    if (auto s = onnx_import::WriteFileAtomically(o.trace, ChromeTrace(*p)); !s.ok()) return ReportError(s);
  }
  if (!o.kernels_out.empty()) {
    auto csv = perf::LoweredKernelsCsv(p->lowering, p->iteration);
    if (!csv.ok()) return ReportError(csv.status());
    if (auto s = onnx_import::WriteFileAtomically(o.kernels_out, *csv); !s.ok()) {
      return ReportError(s.WithContext("--kernels-out"));
    }
  }
  const auto& it = p->iteration;
  const auto& low = p->lowering;
  const int64_t batch = ModelBatch(*model, o.model.batch);
  const double per_s = it.iteration_ms > 0 ? 1e3 * static_cast<double>(batch) / it.iteration_ms : 0;
  const auto top = perf::TopKernels(it, static_cast<size_t>(o.top));
  if (json) {
    nlohmann::json j;
    j["model"] = model->path;
    j["target"] = target->name;
    j["mode"] = std::string(perf::ExecModeName(*mode));
    j["train"] = o.train;
    j["batch"] = batch;
    j["precision_mode"] = low.precision_mode;
    j["iteration_ms"] = it.iteration_ms;
    j["samples_per_s"] = per_s;
    j["breakdown_ms"] = BreakdownJson(it.breakdown);
    j["device_busy_ms"] = it.device_busy_ms;
    j["host_dispatch_ms"] = it.host_ms;
    j["h2d_copy_ms"] = it.h2d_total_ms;
    j["allreduce_ms"] = it.comm_total_ms;
    j["first_run_compile_ms"] = it.first_run_compile_ms;
    j["lowering"] = {{"nodes", low.nodes},
                     {"kernels", low.kernels.size()},
                     {"fused_away", low.fused_ops},
                     {"transdata", low.transdata},
                     {"casts", low.casts},
                     {"aicpu", low.aicpu},
                     {"parameters", low.parameters},
                     {"gradient_bytes", low.gradient_bytes},
                     {"input_bytes", low.input_bytes}};
    j["unknown_op_types"] = it.unknown_op_types;
    auto& ks = j["kernels"] = nlohmann::json::array();
    for (const auto& k : it.kernels) {
      ks.push_back({{"name", k.name},
                    {"op_type", k.op_type},
                    {"time_us", k.time_us},
                    {"bound", std::string(perf::BoundName(k.bound))},
                    {"category", std::string(perf::CategoryName(k.category))},
                    {"phase", std::string(perf::PhaseName(k.phase))}});
    }
    auto& tj = j["top_kernels"] = nlohmann::json::array();
    for (const auto& k : top)
      tj.push_back({{"name", k.name}, {"op_type", k.op_type}, {"time_us", k.time_us}});
    if (ref) {
      j["reference_target"] = ref->target.name;
      j["reference_iteration_ms"] = ref->iteration.iteration_ms;
      j["reference_breakdown_ms"] = BreakdownJson(ref->iteration.breakdown);
      j["ratio"] = ref->iteration.iteration_ms > 0 ? it.iteration_ms / ref->iteration.iteration_ms : 0.0;
    }
    if (!it.comm_algo.empty()) j["allreduce_algo"] = it.comm_algo;
    j["warnings"] = low.warnings;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& w : low.warnings) std::cerr << "npugap: warning: " << w << "\n";
  const auto& b = it.breakdown;
  std::cout << fmt::format("model      {}  batch {}  target {}  {} mode  {}  precision {}\n", model->path,
                           batch, target->name, perf::ExecModeName(*mode), o.train ? "training" : "inference",
                           low.precision_mode);
  std::cout << fmt::format(
      "lowering   {} nodes -> {} kernels ({} fused away, {} TransData, {} Cast, {} AI CPU)\n", low.nodes,
      low.kernels.size(), low.fused_ops, low.transdata, low.casts, low.aicpu);
  std::cout << fmt::format("iteration  {:.2f} ms  ({:.0f} samples/s)\n", it.iteration_ms, per_s);
  auto pct = [&](double v) { return it.iteration_ms > 0 ? 100 * v / it.iteration_ms : 0.0; };
  std::cout << fmt::format(
      "breakdown  cube {:.2f} ms ({:.0f}%)  vector {:.2f} ({:.0f}%)  TransData/Cast {:.2f} ({:.0f}%)  AI CPU "
      "{:.2f} "
      "({:.0f}%)\n           dispatch {:.2f} ({:.0f}%)  H2D {:.2f} ({:.0f}%)  communication {:.2f} "
      "({:.0f}%)\n",
      b.cube_ms, pct(b.cube_ms), b.vector_ms, pct(b.vector_ms), b.transdata_cast_ms, pct(b.transdata_cast_ms),
      b.aicpu_ms, pct(b.aicpu_ms), b.dispatch_ms, pct(b.dispatch_ms), b.h2d_ms, pct(b.h2d_ms), b.comm_ms,
      pct(b.comm_ms));
  if (it.first_run_compile_ms > 0) {
    std::cout << fmt::format("first run  +{:.0f} ms online compile of {} distinct kernels (jit_compile on)\n",
                             it.first_run_compile_ms, it.distinct_kernels);
  }
  if (ref) {
    const double ratio = ref->iteration.iteration_ms > 0 ? it.iteration_ms / ref->iteration.iteration_ms : 0;
    const auto& rb = ref->iteration.breakdown;
    std::cout << fmt::format(
        "compare    {} {:.2f} ms -> {} {:.2f} ms: x{:.2f}; data movement + dispatch on {}: {:.0f}% "
        "(TransData/Cast "
        "{:.2f}, dispatch {:.2f}, H2D {:.2f} ms); on {}: {:.0f}%\n",
        ref->target.name, ref->iteration.iteration_ms, target->name, it.iteration_ms, ratio, target->name,
        pct(b.transdata_cast_ms + b.dispatch_ms + b.h2d_ms), b.transdata_cast_ms, b.dispatch_ms, b.h2d_ms,
        ref->target.name,
        ref->iteration.iteration_ms > 0
            ? 100 * (rb.transdata_cast_ms + rb.dispatch_ms + rb.h2d_ms) / ref->iteration.iteration_ms
            : 0.0);
  }
  if (!it.unknown_op_types.empty()) {
    std::string names;
    for (const auto& n : it.unknown_op_types) names += (names.empty() ? "" : ", ") + n;
    std::cout << fmt::format("unknown    kernel types without a cost rule (counted as 0): {}\n", names);
  }
  std::cout << "top kernels\n";
  for (const auto& k : top) {
    std::cout << fmt::format("  {:>10.1f} us  {:<44} {:<8} {}\n", k.time_us, k.op_type,
                             perf::BoundName(k.bound), k.name);
  }
  if (!o.trace.empty()) std::cout << "trace      " << o.trace << "\n";
  if (!o.kernels_out.empty()) std::cout << "kernels    " << o.kernels_out << "\n";
  return kExitOk;
}

}  // namespace npugap::cli
