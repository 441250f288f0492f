// `npugap precision MODEL --target T --precision-mode M`: the layer-wise comparison of the emulated
// target against the reference, and --suggest-keep, the search for nodes to keep in FP32.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "cli/precision_render.h"
#include "cli/run_precision.h"
#include "npugap/analysis/precision/compare.h"
#include "npugap/analysis/precision/emulate.h"
#include "npugap/analysis/precision/plan.h"
#include "npugap/analysis/precision/suggest_keep.h"
#include "npugap/exec/random_inputs.h"
#include "npugap/onnx/input_files.h"
#include "npugap/onnx/io_files.h"

namespace npugap::cli {
namespace {
namespace fs = std::filesystem;
namespace pr = analysis::precision;

struct PrecisionCmdOptions {
  ModelOptions model;
  TargetOptions target;
  std::string mode;
  std::string reference = "fp32";
  std::vector<std::string> inputs;
  int samples = 1;
  uint64_t seed = 0;
  std::string csv;
  bool json = false;
  std::string thresholds;
  std::string labels;
  std::string keep_dtype;
  std::string mixlist;
  std::string overflow;
  std::string op_select_implmode;
  int cube_accumulator_bits = -1;
  std::string save_outputs;
  bool suggest_keep = false;
  double goal_cosine = 0.999;
  int max_runs = 48;
  std::string write_keep_dtype;
  std::string write_mixlist;
  int threads = 1;
};

// An output file must be writable where it is going: its folder must exist.
Status CheckOutputPath(const std::string& flag, const std::string& path) {
  if (path.empty()) return Status::Ok();
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    return Status::InvalidArgument(
        fmt::format("{} {}: folder '{}' does not exist", flag, path, parent.string()));
  }
  if (fs::is_directory(path, ec))
    return Status::InvalidArgument(fmt::format("{} {}: is a folder", flag, path));
  return Status::Ok();
}

Status CheckReadable(const std::string& flag, const std::string& path) {
  if (path.empty()) return Status::Ok();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Status::NotFound(fmt::format("{} {}: no such file", flag, path));
  return Status::Ok();
}

Expected<std::vector<int64_t>> LoadLabels(const std::string& path) {
  NPUGAP_ASSIGN_OR_RETURN(ir::Tensor t, onnx_import::ReadNpy(path));
  if (t.rank() != 1) {
    return Status::InvalidArgument(
        fmt::format("--labels {}: expected a 1-D array, got shape {}", path, ir::ShapeToString(t.shape())));
  }
  std::vector<int64_t> labels;
  if (t.dtype() == ir::DType::kInt64) {
    labels.assign(t.data<int64_t>(), t.data<int64_t>() + t.numel());
  } else if (t.dtype() == ir::DType::kInt32) {
    for (int64_t i = 0; i < t.numel(); ++i) labels.push_back(t.data<int32_t>()[i]);
  } else {
    return Status::InvalidArgument(
        fmt::format("--labels {}: expected int64 labels, got {}", path, ir::DTypeName(t.dtype())));
  }
  return labels;
}

// Every flag is checked here, before the model is run.
Status CheckFlags(const PrecisionCmdOptions& o, pr::Thresholds& thresholds) {
  if (!o.mode.empty()) {
    const auto names = pr::PrecisionModeNames();
    if (std::find(names.begin(), names.end(), o.mode) == names.end()) {
      std::string valid;
      for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
      return Status::InvalidArgument(fmt::format("unknown --precision-mode '{}' (valid: {})", o.mode, valid));
    }
  }
  if (!o.thresholds.empty()) {
    NPUGAP_ASSIGN_OR_RETURN(thresholds, pr::ParseThresholds(o.thresholds));
  }
  if (!o.inputs.empty() && o.samples != 1) {
    return Status::InvalidArgument(
        "--samples applies to random inputs; an --inputs set is one sample (batch rows count)");
  }
  if (!o.labels.empty() && o.inputs.empty()) {
    return Status::InvalidArgument("--labels needs the --inputs set they label");
  }
  if (!(o.goal_cosine > 0 && o.goal_cosine <= 1)) {
    return Status::InvalidArgument(fmt::format("--goal-cosine {}: must lie in (0, 1]", o.goal_cosine));
  }
  if (!o.suggest_keep && (!o.write_keep_dtype.empty() || !o.write_mixlist.empty())) {
    return Status::InvalidArgument("--write-keep-dtype / --write-mixlist need --suggest-keep");
  }
  NPUGAP_RETURN_IF_ERROR(CheckReadable("--keep-dtype", o.keep_dtype));
  NPUGAP_RETURN_IF_ERROR(CheckReadable("--modify-mixlist", o.mixlist));
  NPUGAP_RETURN_IF_ERROR(CheckReadable("--labels", o.labels));
  NPUGAP_RETURN_IF_ERROR(CheckOutputPath("--csv", o.csv));
  NPUGAP_RETURN_IF_ERROR(CheckOutputPath("--write-keep-dtype", o.write_keep_dtype));
  NPUGAP_RETURN_IF_ERROR(CheckOutputPath("--write-mixlist", o.write_mixlist));
  if (!o.save_outputs.empty()) {
    std::error_code ec;
    if (fs::exists(o.save_outputs, ec) && !fs::is_directory(o.save_outputs, ec)) {
      return Status::InvalidArgument(fmt::format("--save-outputs {}: not a folder", o.save_outputs));
    }
  }
  return Status::Ok();
}

std::string FileSafe(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  if (s[0] == '.') s[0] = '_';
  return s;
}

// Nodes the plan runs below FP32: the only ones worth keeping.
std::vector<std::string> LoweredNodes(const ir::Model& m, const pr::PrecisionPlan& plan) {
  std::vector<std::string> names;
  for (size_t i = 0; i < plan.nodes.size() && i < m.graph.nodes.size(); ++i) {
    const pr::NodeNumerics& n = plan.nodes[i];
    if (n.unit == pr::Unit::kNone) continue;
    if (n.input != numerics::Format::kFP32 || n.compute != numerics::Format::kFP32 ||
        n.output != numerics::Format::kFP32) {
      names.push_back(m.graph.nodes[i].name);
    }
  }
  return names;
}

void FillFormats(pr::PrecisionComparison& c, const pr::PrecisionPlan& plan) {
  for (auto& t : c.tensors) {
    if (t.node_index >= 0 && static_cast<size_t>(t.node_index) < plan.nodes.size()) {
      t.target_format =
          std::string(numerics::Info(plan.nodes[static_cast<size_t>(t.node_index)].output).name);
    }
  }
}

int RunPrecision(const PrecisionCmdOptions& o) {
  pr::Thresholds thresholds;
  if (Status s = CheckFlags(o, thresholds); !s.ok()) return ReportError(s);
  auto target = LoadTargetWithOptions(o.target);
  if (!target.ok()) return ReportError(target.status());
  auto model = LoadModelWithOptions(o.model);
  if (!model.ok()) return ReportError(model.status());
  std::vector<int64_t> labels;
  if (!o.labels.empty()) {
    auto l = LoadLabels(o.labels);
    if (!l.ok()) return ReportError(l.status());
    labels = std::move(l).value();
  }

  pr::PrecisionOptions popts;
  popts.mode = o.mode;
  popts.keep_dtype_file = o.keep_dtype;
  popts.modify_mixlist_file = o.mixlist;
  if (o.overflow == "ieee") popts.overflow = numerics::Overflow::kIeee;
  if (o.overflow == "saturation") popts.overflow = numerics::Overflow::kSaturation;
  if (Status s = ApplyKernelNumericsFlags(o.op_select_implmode, o.cube_accumulator_bits, popts); !s.ok())
    return ReportError(s);
  auto plan = pr::BuildPrecisionPlan(*model, *target, popts);
  if (!plan.ok()) return ReportError(plan.status());

  std::vector<std::vector<ir::Tensor>> sets;
  if (o.inputs.empty()) {
    auto r = pr::RandomSampleSets(model->graph, o.seed, o.samples);
    if (!r.ok()) return ReportError(r.status());
    sets = std::move(r).value();
  } else {
    auto in = onnx_import::LoadInputFiles(model->graph, o.inputs);
    if (!in.ok()) return ReportError(in.status());
    sets.push_back(std::move(in).value());
  }

  const auto ref_precision =
      o.reference == "fp64" ? pr::ReferencePrecision::kFP64 : pr::ReferencePrecision::kFP32;
  auto reference = pr::MakeReferenceRun(*model, ref_precision, o.threads);
  if (!reference.ok()) return ReportError(reference.status().WithContext(model->path));
  pr::CompareSettings settings{thresholds, labels};
  // --suggest-keep compares many plans with one reference: trace it once and keep it. A single
  // comparison streams instead (one input set's reference in memory at a time).
  std::optional<pr::ReferenceTrace> trace;
  if (o.suggest_keep) {
    auto t = pr::TraceReference(*model, *reference, sets);
    if (!t.ok()) return ReportError(t.status());
    trace = std::move(t).value();
  }

  auto compare_with =
      [&](const pr::PrecisionPlan& p, const pr::ReferenceTrace& tr,
          const std::vector<std::vector<ir::Tensor>>& input_sets) -> Expected<pr::PrecisionComparison> {
    NPUGAP_ASSIGN_OR_RETURN(pr::TracedRun run, pr::MakeTargetRun(*model, p, o.threads));
    NPUGAP_ASSIGN_OR_RETURN(pr::PrecisionComparison c,
                            pr::CompareWithReference(*model, tr, run, input_sets, settings));
    FillFormats(c, p);
    return c;
  };
  auto comparison = [&]() -> Expected<pr::PrecisionComparison> {
    if (trace) return compare_with(*plan, *trace, sets);
    NPUGAP_ASSIGN_OR_RETURN(pr::TracedRun run, pr::MakeTargetRun(*model, *plan, o.threads));
    NPUGAP_ASSIGN_OR_RETURN(pr::PrecisionComparison c,
                            pr::CompareStreamed(*model, *reference, run, sets, settings));
    FillFormats(c, *plan);
    return c;
  }();
  if (!comparison.ok()) return ReportError(comparison.status());

  std::optional<pr::KeepSuggestion> keep;
  if (o.suggest_keep) {
    auto plan_keeping = [&](const std::vector<std::string>& nodes) {
      pr::PrecisionOptions k = popts;
      k.keep_fp32_nodes = nodes;
      return pr::BuildPrecisionPlan(*model, *target, k);
    };
    pr::KeepEvaluator evaluate =
        [&](const std::vector<std::string>& nodes) -> Expected<pr::PrecisionComparison> {
      NPUGAP_ASSIGN_OR_RETURN(pr::PrecisionPlan p, plan_keeping(nodes));
      return compare_with(p, *trace, sets);
    };
    // Random inputs: verify on fresh samples the search never saw; an --inputs set is reused.
    std::vector<std::vector<ir::Tensor>> verify_sets = sets;
    pr::ReferenceTrace verify_trace = *trace;
    if (o.inputs.empty()) {
      auto r = pr::RandomSampleSets(model->graph, o.seed + static_cast<uint64_t>(sets.size()), o.samples);
      if (!r.ok()) return ReportError(r.status());
      verify_sets = std::move(r).value();
      auto t = pr::TraceReference(*model, *reference, verify_sets);
      if (!t.ok()) return ReportError(t.status());
      verify_trace = std::move(t).value();
    }
    pr::KeepEvaluator verify =
        [&](const std::vector<std::string>& nodes) -> Expected<pr::PrecisionComparison> {
      NPUGAP_ASSIGN_OR_RETURN(pr::PrecisionPlan p, plan_keeping(nodes));
      return compare_with(p, verify_trace, verify_sets);
    };
    auto s = pr::SuggestKeep(*model, LoweredNodes(*model, *plan), *comparison, evaluate, verify,
                             {o.goal_cosine, o.max_runs});
    if (!s.ok()) return ReportError(s.status());
    keep = std::move(s).value();
    // The mixlist written below is coarser than the node set: it gets its own verification run.
    const pr::PlanEvaluator run_plan = [&](const pr::PrecisionPlan& p) {
      return compare_with(p, verify_trace, verify_sets);
    };
    if (Status m = pr::VerifyMixlist(*model, *target, popts, run_plan, o.goal_cosine, *keep); !m.ok())
      return ReportError(m);
    if (!o.write_keep_dtype.empty()) {
      if (Status w = onnx_import::WriteFileAtomically(o.write_keep_dtype, pr::KeepDtypeFileText(*keep));
          !w.ok()) {
        return ReportError(w);
      }
    }
    if (!o.write_mixlist.empty()) {
      if (Status w = onnx_import::WriteFileAtomically(o.write_mixlist, pr::ModifyMixlistText(*keep));
          !w.ok()) {
        return ReportError(w);
      }
    }
  }

  if (!o.csv.empty()) {
    const std::string dtype = o.reference == "fp64" ? "float64" : "float32";
    if (Status w = onnx_import::WriteFileAtomically(o.csv, PrecisionCsv(*comparison, dtype)); !w.ok()) {
      return ReportError(w);
    }
  }
  if (!o.save_outputs.empty()) {
    std::error_code ec;
    fs::create_directories(o.save_outputs, ec);
    if (ec)
      return ReportError(Status::IoError(fmt::format("--save-outputs {}: {}", o.save_outputs, ec.message())));
    const ir::Graph& g = model->graph;
    for (size_t i = 0; i < comparison->first_sample_outputs.size() && i < g.outputs.size(); ++i) {
      const std::string path =
          (fs::path(o.save_outputs) / (FileSafe(g.values[static_cast<size_t>(g.outputs[i])].name) + ".npy"))
              .string();
      if (Status w = onnx_import::WriteNpy(path, comparison->first_sample_outputs[i]); !w.ok())
        return ReportError(w);
    }
  }

  PrecisionReportHeader header{model->path, target->name, plan->mode,
                               o.reference, thresholds,   plan->warnings};
  for (const auto& w : model->warnings) header.warnings.push_back(w);
  header.notes = pr::HostRunNotes(*plan);
  for (const auto& w : header.warnings) std::cerr << "npugap: warning: " << w << "\n";
  const pr::KeepSuggestion* k = keep ? &*keep : nullptr;
  if (o.json) {
    std::cout << PrecisionJson(header, *comparison, k, o.goal_cosine).dump(2) << "\n";
  } else {
    std::cout << PrecisionText(header, *comparison, k, o.goal_cosine);
  }
  if (keep) return keep->achieved ? kExitOk : kExitCheckFailed;
  return comparison->outputs_pass ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command AddPrecisionCommand(CLI::App& app) {
  auto o = std::make_shared<PrecisionCmdOptions>();
  CLI::App* cmd = app.add_subcommand(
      "precision",
      "compare the emulated NPU numerics with the reference, tensor by tensor (msprobe's metrics)");
  AddModelOptions(*cmd, o->model);
  AddTargetOption(*cmd, o->target);
  cmd->add_option(
      "--precision-mode", o->mode,
      "ATC --precision_mode / --precision_mode_v2 value or uniform_<fmt> (default: the target's)");
  cmd->add_option("--reference", o->reference, "reference arithmetic: fp32 (default) or fp64")
      ->check(CLI::IsMember({"fp32", "fp64"}));
  cmd->add_option("--inputs", o->inputs,
                  "input_K.pb folder, .pb, .npy or .npz files (default: seeded random)");
  cmd->add_option("--samples", o->samples,
                  "samples (rows along the batch dimension), run in ceil(N / batch) random batches with "
                  "seeds S, S+1, ... (default 1: one batch)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "seed of the first random input set");
  cmd->add_option("--csv", o->csv, "write msprobe's compare_result columns to FILE");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->add_option("--thresholds", o->thresholds, "cos=0.99,max_abs=0.001,cos_floor=0.9,max_abs_ceiling=1");
  cmd->add_option("--labels", o->labels, ".npy of int64 labels, one per row of the --inputs set");
  cmd->add_option("--keep-dtype", o->keep_dtype, "ATC --keep_dtype file");
  cmd->add_option("--modify-mixlist", o->mixlist, "ATC --modify_mixlist JSON");
  cmd->add_option("--overflow", o->overflow, "ieee or saturation (default: the target's)")
      ->check(CLI::IsMember({"ieee", "saturation"}));
  AddKernelNumericsFlags(*cmd, o->op_select_implmode, o->cube_accumulator_bits);
  cmd->add_option("--save-outputs", o->save_outputs,
                  "write the target's outputs of sample 0 as DIR/<name>.npy");
  cmd->add_flag("--suggest-keep", o->suggest_keep,
                "search a small set of nodes to keep in FP32 so every output passes");
  cmd->add_option("--goal-cosine", o->goal_cosine,
                  "--suggest-keep: cosine every output must reach (default 0.999)");
  cmd->add_option("--max-runs", o->max_runs,
                  "--suggest-keep: emulated runs the search may spend (default 48)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--write-keep-dtype", o->write_keep_dtype,
                  "--suggest-keep: write the ATC --keep_dtype file");
  cmd->add_option("--write-mixlist", o->write_mixlist, "--suggest-keep: write the ATC --modify_mixlist JSON");
  AddThreadsOption(*cmd, o->threads);
  return {cmd, [o] { return RunPrecision(*o); }};
}

}  // namespace npugap::cli
