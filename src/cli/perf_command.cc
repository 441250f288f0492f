// `npugap perf`: performance prediction. This file holds the `--kernels FILE.csv` mode (issue 5,
// item 3): the per-kernel cost model checked against measured kernel records, read from a
// calibration CSV, an msprof op_summary or a torch_npu kernel_details file (kernel_profile_reader.h,
// told apart by the header). The `perf MODEL`
// mode (lowering + iteration model) is registered on the same subcommand by its own section.
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "cli/perf_model_command.h"
#include "npugap/analysis/perf/calibrate/calibration.h"
#include "npugap/analysis/perf/calibrate/kernel_profile_reader.h"
#include "npugap/analysis/perf/cost/dtype_labels.h"
#include "npugap/onnx/io_files.h"

namespace npugap::cli {
namespace {

namespace perf = analysis::perf;

struct PerfOptions {
  TargetOptions target;
  std::string kernels;  // --kernels FILE.csv
  std::string out;      // --out predictions.csv
  // --dtype-labels (dtype_labels.h). Unless given, the reading the file's format needs
  // (DefaultDtypeLabels): the calibration format's labels are MindSpore profiler names, one TypeId
  // early (docs/perf.md, "Dtype labels"); msprof and torch_npu print true dtypes.
  std::string dtype_labels;
  bool dtype_labels_given = false;
  bool json = false;
  PerfModelOptions model_mode;  // `perf MODEL ...` (perf_model_command.cc)
};

// ---- --kernels mode ---------------------------------------------------------------------------

std::string PredictionsCsv(const perf::KernelTable& table, const perf::CalibrationReport& rep) {
  // Profiler files come out in the calibration format (kernel_profile_reader.h), one row per kernel.
  std::string out = table.header + ",predicted_us\n";
  for (size_t i = 0; i < table.records.size(); ++i) {
    const auto& c = rep.predictions[i];
    out += table.records[i].text + "," + (c.known ? fmt::format("{:.3f}", c.time_us) : std::string()) + "\n";
  }
  return out;
}

nlohmann::json ReportJson(const std::string& file, const perf::KernelProfile& profile,
                          const target::Target& t, const perf::CalibrationReport& rep) {
  nlohmann::json j;
  j["kernels_file"] = file;
  j["format"] = perf::ProfileFormatName(profile.format);
  j["target"] = t.name;
  j["dtype_labels"] = perf::DtypeLabelsName(profile.dtype_labels);
  j["rows"] = profile.rows;
  j["records"] = profile.table.records.size();
  j["merged_launches"] = profile.merged_launches;
  auto& skipped = j["skipped"] = nlohmann::json::array();
  for (const auto& [why, n] : profile.skipped) skipped.push_back({{"reason", why}, {"rows", n}});
  j["measured_us"] = rep.measured_us;
  j["predicted_us"] = rep.predicted_us;
  j["sum_error_pct"] = 100 * rep.sum_error;
  j["core"] = {{"time_share", rep.core_share},
               {"op_types", rep.core_types},
               {"mape_pct", 100 * rep.core_mape},
               {"weighted_mape_pct", 100 * rep.core_weighted_mape}};
  auto& types = j["op_types"] = nlohmann::json::array();
  for (const auto& e : rep.op_types) {
    types.push_back({{"op_type", e.op_type},
                     {"count", e.count},
                     {"measured_us", e.measured_us},
                     {"predicted_us", e.predicted_us},
                     {"mape_pct", 100 * e.mape},
                     {"weighted_mape_pct", 100 * e.weighted_mape},
                     {"time_share", e.time_share},
                     {"in_core", e.in_core}});
  }
  auto& unknown = j["unknown"] = nlohmann::json::array();
  for (const auto& [type, n] : rep.unknown) unknown.push_back({{"op_type", type}, {"count", n}});
  j["notes"] = rep.notes;
  return j;
}

void PrintReport(const std::string& file, const perf::KernelProfile& profile, const target::Target& t,
                 const perf::CalibrationReport& rep) {
  const size_t records = profile.table.records.size();
  const std::string labels(perf::DtypeLabelsName(profile.dtype_labels));
  const bool calibration = profile.format == perf::ProfileFormat::kCalibrationCsv;
  std::cout << fmt::format(
      "kernels    {} ({}{} records{}) on {}{}\n", file,
      calibration ? "" : fmt::format("{}: {} rows, ", perf::ProfileFormatName(profile.format), profile.rows),
      records,
      profile.merged_launches ? fmt::format(", {} repeated launches merged", profile.merged_launches) : "",
      t.name, profile.dtype_labels == perf::DtypeLabels::kAsWritten ? "" : ", dtype labels read " + labels);
  if (!profile.skipped.empty()) {
    int rows = 0;
    std::string why;
    for (const auto& [reason, n] : profile.skipped) {
      rows += n;
      why += fmt::format("{}{} ({})", why.empty() ? "" : ", ", reason, n);
    }
    std::cout << fmt::format("skipped    {} rows that are no AI Core / AI CPU kernel: {}\n", rows, why);
  }
  std::cout << fmt::format("{:<46} {:>5} {:>11} {:>11} {:>7} {:>8} {:>8}\n", "op type", "n", "measured_us",
                           "predicted", "share", "mape", "w.mape");
  for (const auto& e : rep.op_types) {
    std::cout << fmt::format("{:<46} {:>5} {:>11.1f} {:>11.1f} {:>6.1f}% {:>7.1f}% {:>7.1f}%{}\n", e.op_type,
                             e.count, e.measured_us, e.predicted_us, 100 * e.time_share, 100 * e.mape,
                             100 * e.weighted_mape, e.in_core ? "  *" : "");
  }
  std::cout << fmt::format(
      "core       {} op types (*) make up {:.0f}% of the time: mean |error| per op type {:.1f}% "
      "(time-weighted within each type) / {:.1f}% (unweighted)\n",
      rep.core_types, 100 * rep.core_share, 100 * rep.core_weighted_mape, 100 * rep.core_mape);
  std::cout << fmt::format("sum        measured {:.1f} us, predicted {:.1f} us, error {:+.1f}%\n",
                           rep.measured_us, rep.predicted_us, 100 * rep.sum_error);
  int unknown_records = 0;
  std::string names;
  for (const auto& [type, n] : rep.unknown) {
    unknown_records += n;
    names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", type, n);
  }
  std::cout << fmt::format("unknown    {} records of {} op types predicted as 0{}{}\n", unknown_records,
                           rep.unknown.size(), names.empty() ? "" : ": ", names);
  for (const auto& n : rep.notes) std::cout << "note       " << n << "\n";
}

int RunKernelsMode(const PerfOptions& o) {
  auto target = LoadTargetWithOptions(o.target);
  if (!target.ok()) return ReportError(target.status());
  for (const auto& w : target->warnings) std::cerr << "npugap: warning: " << w << "\n";
  std::optional<perf::DtypeLabels> reading;  // unless given, the one the file's format needs
  if (o.dtype_labels_given) {
    auto given = perf::ParseDtypeLabels(o.dtype_labels);
    if (!given.ok()) return ReportError(given.status());
    reading = *given;
  }
  auto profile = perf::ReadKernelProfile(o.kernels, reading);
  if (!profile.ok()) return ReportError(profile.status());
  const perf::CalibrationReport rep = perf::Calibrate(profile->table.records, *target);
  if (!o.out.empty()) {
    if (auto s = onnx_import::WriteFileAtomically(o.out, PredictionsCsv(profile->table, rep)); !s.ok()) {
      return ReportError(s);
    }
  }
  if (o.json) {
    std::cout << ReportJson(o.kernels, *profile, *target, rep).dump(2) << "\n";
  } else {
    PrintReport(o.kernels, *profile, *target, rep);
  }
  return kExitOk;
}

int RunPerf(const PerfOptions& o) {
  const bool model = !o.model_mode.model.model_path.empty();
  if (model && !o.kernels.empty()) {
    return ReportError(Status::InvalidArgument("perf: give either MODEL or --kernels FILE.csv, not both"));
  }
  if (model && o.dtype_labels_given) {
    return ReportError(Status::InvalidArgument(
        fmt::format("perf --dtype-labels {}: only with --kernels (it reads the labels of kernel records)",
                    o.dtype_labels)));
  }
  if (model) return RunPerfModel(o.model_mode, o.target, o.json);
  // The outputs of a model's lowering: with --kernels alone there is none, and a silently unwritten
  // file would read as success.
  for (const auto& [flag, path] :
       {std::pair{"--kernels-out", &o.model_mode.kernels_out}, std::pair{"--trace", &o.model_mode.trace}}) {
    if (!path->empty()) {
      return ReportError(Status::InvalidArgument(fmt::format(
          "perf {} {}: only with a MODEL (its lowered kernels); with --kernels use --out", flag, *path)));
    }
  }
  if (o.kernels.empty()) {
    return ReportError(Status::InvalidArgument(
        "perf: give --kernels FILE.csv (kernel records to predict) or MODEL (an ONNX file)"));
  }
  return RunKernelsMode(o);
}

}  // namespace

Command AddPerfCommand(CLI::App& app) {
  auto options = std::make_shared<PerfOptions>();
  CLI::App* cmd = app.add_subcommand(
      "perf",
      "performance: predicted iteration time of MODEL, or the per-kernel cost model on kernel records");
  AddTargetOption(*cmd, options->target);
  AddPerfModelOptions(*cmd, options->model_mode);
  cmd->add_option(
      "--kernels", options->kernels,
      "measured kernels to predict: a calibration CSV (op_type, block_dim, inputs, outputs, "
      "time_us), an msprof op_summary_*.csv or a torch_npu kernel_details.csv (told by the header)");
  cmd->add_option("--out", options->out, "write the records with a predicted_us column to this CSV");
  cmd->add_option("--dtype-labels", options->dtype_labels,
                  "how --kernels reads dtype labels (default: as the file's format needs): typeid-shifted "
                  "(the default for the calibration CSV: MindSpore profiler files such as the calibration "
                  "set, each label the TypeId before the real one) | as-written (the default for msprof and "
                  "torch_npu files; true dtypes, e.g. npugap's own --kernels-out)");
  cmd->add_flag("--json", options->json, "JSON output");
  return {cmd, [options, cmd] {
            options->model_mode.batch_given = cmd->get_option("--batch")->count() > 0;
            options->dtype_labels_given = cmd->get_option("--dtype-labels")->count() > 0;
            return RunPerf(*options);
          }};
}

}  // namespace npugap::cli
