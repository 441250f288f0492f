// `npugap analyze MODEL --target T ...`: every gap of the model on the target in one report —
// terminal summary, --json FILE, --html FILE — and a CI gate (--fail-on). Every flag is checked
// before any work starts; output files are written atomically and removed on Ctrl-C.
// Exit 0: no gated section failed; 1: a section named in --fail-on failed; 2: bad input.
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/perf_model_command.h"
#include "cli/run_precision.h"
#include "npugap/analysis/memory/training.h"
#include "npugap/comm/cluster.h"
#include "npugap/exec/executor.h"
#include "npugap/onnx/input_files.h"
#include "npugap/onnx/io_files.h"
#include "npugap/report/build.h"
#include "npugap/report/render.h"

namespace npugap::cli {
namespace {

namespace fs = std::filesystem;

struct AnalyzeFlags {
  ModelOptions model;
  TargetOptions target;
  bool train = false;
  std::string optimizer;
  std::string precision_mode;
  std::string op_select_implmode;
  std::string dev_target;
  int64_t dev_batch = 0;  // 0: not given (the deploy batch)
  std::string cluster;
  int ranks = 0;
  std::vector<std::string> inputs;
  int samples = 2;
  uint64_t seed = 0;
  int threads = 1;
  std::string json_path;
  std::string html_path;
  std::string trace_path;
  std::string fail_on;
  std::string skip;
  double max_slowdown = 0;  // 0: not given
  CLI::App* cmd = nullptr;
  bool given(const char* flag) const { return cmd->get_option(flag)->count() > 0; }
};

// ATC --precision_mode and --precision_mode_v2 values (ascend-facts §3.1 / §3.2 [OFF]).
const std::vector<std::string>& PrecisionModes() {
  static const std::vector<std::string> modes = {"force_fp16",
                                                 "force_fp32",
                                                 "allow_fp32_to_fp16",
                                                 "must_keep_origin_dtype",
                                                 "allow_mix_precision",
                                                 "allow_mix_precision_fp16",
                                                 "allow_mix_precision_bf16",
                                                 "cube_fp16in_fp32out",
                                                 "fp16",
                                                 "origin",
                                                 "mixed_float16",
                                                 "mixed_bfloat16",
                                                 "mixed_hif8"};
  return modes;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A --fail-on / --skip list of section keys.
Expected<std::vector<std::string>> ParseSectionList(const char* flag, const std::string& text) {
  std::vector<std::string> keys;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "all") {
      keys = report::SectionKeys();
      continue;
    }
    bool known = false;
    for (const auto& k : report::SectionKeys()) known = known || k == item;
    if (!known) {
      return Status::InvalidArgument(fmt::format("{} '{}': unknown section '{}' (valid: {}, all)", flag, text,
                                                 item, Join(report::SectionKeys())));
    }
    keys.push_back(item);
  }
  if (keys.empty() || text.back() == ',')
    return Status::InvalidArgument(fmt::format("{} '{}': expected a list like memory,compat", flag, text));
  return keys;
}

// An output path: "-" (stdout, --json only), or a file whose folder exists and that is not a folder.
Status CheckOutputPath(const std::string& flag, const std::string& path, bool allow_stdout) {
  if (path.empty()) return Status::InvalidArgument(flag + ": empty path");
  if (path == "-") {
    return allow_stdout ? Status::Ok()
                        : Status::InvalidArgument(flag + " -: this output cannot go to stdout");
  }
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return Status::InvalidArgument(fmt::format("{} {}: is a directory", flag, path));
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return Status::InvalidArgument(
        fmt::format("{} {}: folder {} does not exist", flag, path, parent.string()));
  if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
    return Status::InvalidArgument(fmt::format("{} {}: folder is not writable", flag, path));
  return Status::Ok();
}

// Temporary files of the outputs being written, removed by the signal handler (async-signal-safe
// unlink only) so that Ctrl-C leaves neither a half-written output nor a stray temporary.
char g_temp_paths[3][4096];

extern "C" void RemoveTempsAndExit(int sig) {
  for (auto& p : g_temp_paths) {
    if (p[0] != '\0') ::unlink(p);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void RegisterTemp(size_t slot, const std::string& path) {
  const std::string tmp = path + ".tmp-npugap";  // WriteFileAtomically's temporary name
  if (tmp.size() < sizeof(g_temp_paths[slot]))
    std::snprintf(g_temp_paths[slot], sizeof(g_temp_paths[slot]), "%s", tmp.c_str());
}

struct Validated {
  target::Target target;
  std::optional<target::Target> dev_target;
  std::optional<comm::Cluster> cluster;
  std::vector<std::string> fail_on;
  std::vector<std::string> skip;
};

// Every flag, before the model is read.
Expected<Validated> ValidateFlags(const AnalyzeFlags& f) {
  Validated v;
  if (f.given("--batch") && f.model.batch <= 0)
    return Status::InvalidArgument(fmt::format("--batch {}: must be positive", f.model.batch));
  if (f.given("--dev-batch") && f.dev_batch <= 0)
    return Status::InvalidArgument(fmt::format("--dev-batch {}: must be positive", f.dev_batch));
  if (f.given("--optimizer") && !f.train)
    return Status::InvalidArgument(fmt::format("--optimizer {}: only with --train", f.optimizer));
  if (f.train)
    NPUGAP_RETURN_IF_ERROR(
        analysis::memory::ParseOptimizer(f.optimizer.empty() ? "adam" : f.optimizer).status());
  if (f.given("--precision-mode")) {
    bool known = false;
    for (const auto& m : PrecisionModes()) known = known || m == f.precision_mode;
    if (!known)
      return Status::InvalidArgument(fmt::format("--precision-mode '{}': unknown (valid: {})",
                                                 f.precision_mode, Join(PrecisionModes())));
  }
  if (f.given("--op-select-implmode")) {
    analysis::precision::PrecisionOptions checked;
    NPUGAP_RETURN_IF_ERROR(ApplyKernelNumericsFlags(f.op_select_implmode, -1, checked));
  }
  if (f.given("--samples") && f.samples < 1)
    return Status::InvalidArgument(fmt::format("--samples {}: must be >= 1", f.samples));
  if (f.given("--samples") && !f.inputs.empty())
    return Status::InvalidArgument(
        "--samples applies to random inputs; an --inputs set is one sample (batch rows count)");
  if (f.given("--max-slowdown") && !(f.max_slowdown >= 1 && std::isfinite(f.max_slowdown)))
    return Status::InvalidArgument(
        fmt::format("--max-slowdown {}: must be a number >= 1 (deploy / dev time)", f.max_slowdown));
  for (const auto& p : f.inputs) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return Status::NotFound(fmt::format("--inputs {}: no such file or folder", p));
  }
  if (f.given("--fail-on")) {
    NPUGAP_ASSIGN_OR_RETURN(v.fail_on, ParseSectionList("--fail-on", f.fail_on));
  }
  if (f.given("--skip")) {
    NPUGAP_ASSIGN_OR_RETURN(v.skip, ParseSectionList("--skip", f.skip));
  }
  if (f.given("--json")) NPUGAP_RETURN_IF_ERROR(CheckOutputPath("--json", f.json_path, true));
  if (f.given("--html")) NPUGAP_RETURN_IF_ERROR(CheckOutputPath("--html", f.html_path, false));
  if (f.given("--trace")) NPUGAP_RETURN_IF_ERROR(CheckOutputPath("--trace", f.trace_path, false));
  const std::vector<std::pair<const char*, std::string>> outputs = {
      {"--json", f.json_path}, {"--html", f.html_path}, {"--trace", f.trace_path}};
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path.empty() || path == "-") continue;
    std::error_code ec;
    if (fs::equivalent(path, f.model.model_path, ec))
      return Status::InvalidArgument(fmt::format("{} {}: would overwrite the model", flag, path));
    for (size_t k = 0; k < i; ++k) {
      if (outputs[k].second == path)
        return Status::InvalidArgument(fmt::format("{} {}: same file as {}", flag, path, outputs[k].first));
    }
  }
  if (f.given("--ranks") && f.cluster.empty())
    return Status::InvalidArgument("--ranks: only with --cluster NAME");
  if (!f.cluster.empty() && !f.given("--ranks"))
    return Status::InvalidArgument("--cluster " + f.cluster + ": --ranks N is required");
  if (!f.cluster.empty()) {
    NPUGAP_ASSIGN_OR_RETURN(comm::Cluster c, comm::LoadCluster(f.cluster, comm::FindClustersDir()));
    if (f.ranks < 1) return Status::InvalidArgument(fmt::format("--ranks {}: must be >= 1", f.ranks));
    if (auto layout = comm::MakeLayout(c, f.ranks); !layout.ok())
      return layout.status().WithContext(fmt::format("--ranks {}", f.ranks));
    v.cluster = std::move(c);
  }
  auto target = LoadTargetWithOptions(f.target);
  if (!target.ok()) return target.status().WithContext("--target");
  v.target = std::move(*target);
  if (!f.dev_target.empty()) {
    auto dev = target::LoadTarget(f.dev_target);
    if (!dev.ok()) return dev.status().WithContext("--dev-target");
    v.dev_target = std::move(*dev);
  }
  std::error_code ec;
  if (!fs::is_regular_file(f.model.model_path, ec))
    return Status::NotFound(fmt::format("{}: no such file", f.model.model_path));
  return v;
}

// --batch binds symbolic leading dims only; a file with a fixed batch would silently be analysed
// at its own batch, so that is an error naming the batch in the file.
Status CheckBatchBound(const ir::Model& model, int64_t batch, const char* flag) {
  int64_t fixed = 0;
  for (int id : model.graph.inputs) {
    const auto& dims = model.graph.values[static_cast<size_t>(id)].type.dims;
    if (!dims || dims->empty() || !(*dims)[0].is_static()) continue;
    if ((*dims)[0].value == batch) return Status::Ok();
    fixed = (*dims)[0].value;
  }
  if (fixed == 0) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("{} {}: {} has a fixed batch of {}; re-export it with a symbolic batch dim (or "
                  "generate it at batch {})",
                  flag, batch, model.path, fixed, batch));
}

// A bar on stderr, redrawn in place; only on a terminal.
void DrawProgress(std::string_view step, int done, int total) {
  constexpr int kWidth = 24;
  const int filled = total > 0 ? kWidth * done / total : kWidth;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::cerr << fmt::format("\r\033[K[{}] {}/{} {}", bar, done, total, step) << std::flush;
  if (done >= total) std::cerr << "\r\033[K" << std::flush;
}

Status WriteOutput(size_t slot, const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return Status::Ok();
  }
  RegisterTemp(slot, path);
  Status s = onnx_import::WriteFileAtomically(path, text);
  g_temp_paths[slot][0] = '\0';
  return s;
}

int RunAnalyze(const AnalyzeFlags& f) {
  auto v = ValidateFlags(f);
  if (!v.ok()) return ReportError(v.status());
  auto model = LoadModelWithOptions(f.model);
  if (!model.ok()) return ReportError(model.status());
  if (f.given("--batch")) {
    if (Status s = CheckBatchBound(*model, f.model.batch, "--batch"); !s.ok()) return ReportError(s);
  }
  // --dev-batch: the model again at the dev environment's batch (same check as --batch).
  std::optional<ir::Model> dev_model;
  if (f.given("--dev-batch") && f.dev_batch != (f.given("--batch") ? f.model.batch : 0)) {
    auto at = AtBatch(f.model, f.dev_batch);
    if (!at.ok()) return ReportError(at.status().WithContext("--dev-batch"));
    auto m = LoadModelWithOptions(*at);
    if (!m.ok()) return ReportError(m.status().WithContext("--dev-batch"));
    if (Status s = CheckBatchBound(*m, f.dev_batch, "--dev-batch"); !s.ok()) return ReportError(s);
    dev_model = std::move(*m);
  }
  std::vector<ir::Tensor> input_set;
  if (!f.inputs.empty()) {
    auto inputs = onnx_import::LoadInputFiles(model->graph, f.inputs);
    if (!inputs.ok()) return ReportError(inputs.status().WithContext("--inputs"));
    const ir::Graph& g = model->graph;
    if (inputs->size() != g.inputs.size()) {
      return ReportError(Status::InvalidArgument(
          fmt::format("--inputs: {} tensors for the model's {} inputs", inputs->size(), g.inputs.size())));
    }
    for (size_t i = 0; i < inputs->size(); ++i) {
      Status s = exec::CheckInput(g.values[static_cast<size_t>(g.inputs[i])], (*inputs)[i]);
      if (!s.ok()) return ReportError(s.WithContext("--inputs"));
    }
    input_set = std::move(*inputs);
  }
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  report::AnalyzeOptions options;
  options.batch = f.model.batch;
  options.train = f.train;
  options.optimizer = f.optimizer.empty() ? "adam" : f.optimizer;
  options.precision_mode = f.precision_mode;
  options.op_select_implmode = f.op_select_implmode;
  options.dev_target = v->dev_target ? &*v->dev_target : nullptr;
  options.dev_model = dev_model ? &*dev_model : nullptr;
  options.dev_batch = f.dev_batch;
  options.cluster = v->cluster ? &*v->cluster : nullptr;
  options.ranks = f.ranks;
  options.samples = f.samples;
  options.inputs_given = !f.inputs.empty();
  options.seed = f.seed;
  options.skip = v->skip;
  options.inputs = std::move(input_set);
  options.threads = f.threads;
  if (f.given("--max-slowdown")) options.max_slowdown = f.max_slowdown;
  analysis::perf::IterationResult timeline;
  if (!f.trace_path.empty()) options.deploy_timeline = &timeline;
  options.load_at_batch = [&f](int64_t batch) -> Expected<ir::Model> {
    NPUGAP_ASSIGN_OR_RETURN(ModelOptions at, AtBatch(f.model, batch));
    return LoadModelWithOptions(at);
  };
  if (tty) options.progress = DrawProgress;
  auto built = report::BuildReport(*model, v->target, options);
  if (!built.ok()) return ReportError(built.status());
  const report::Report& r = *built;

  std::signal(SIGINT, RemoveTempsAndExit);
  std::signal(SIGTERM, RemoveTempsAndExit);
  if (!f.json_path.empty()) {
    if (Status s = WriteOutput(0, f.json_path, report::RenderJson(r)); !s.ok()) return ReportError(s);
  }
  if (!f.html_path.empty()) {
    if (Status s = WriteOutput(1, f.html_path, report::RenderHtml(r)); !s.ok()) return ReportError(s);
  }
  if (f.json_path != "-") {
    report::TextOptions text;
    text.color = ::isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
    std::cout << report::RenderText(r, text);
    if (!f.json_path.empty()) std::cout << "wrote      " << f.json_path << "\n";
    if (!f.html_path.empty()) std::cout << "wrote      " << f.html_path << "\n";
  }
  if (!f.trace_path.empty()) {
    if (r.perf.verdict == report::Verdict::kNotAvailable) {
      std::cerr << "npugap: note: --trace " << f.trace_path << " not written: " << r.perf.not_available
                << "\n";
    } else {
      if (Status s = WriteOutput(2, f.trace_path, ChromeTraceJson(timeline, v->target.name)); !s.ok())
        return ReportError(s);
      if (f.json_path != "-") std::cout << "wrote      " << f.trace_path << "\n";
    }
  }
  for (const auto& key : v->fail_on) {
    const report::Section* s = r.FindSection(key);
    if (s != nullptr && s->verdict == report::Verdict::kNotAvailable)
      std::cerr << "npugap: note: --fail-on " << key << ": section not available, not gated\n";
  }
  return report::AnyFailed(r, v->fail_on) ? kExitCheckFailed : kExitOk;
}

}  // namespace

Command AddAnalyzeCommand(CLI::App& app) {
  auto f = std::make_shared<AnalyzeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "every gap in one report: compat, precision, memory, perf, comm; text, JSON, HTML; CI gate");
  f->cmd = cmd;
  AddModelOptions(*cmd, f->model);
  f->model.fold_shapes = true;  // the deployed graph: ATC folds shape sub-graphs
  AddTargetOption(*cmd, f->target);
  cmd->add_flag("--train", f->train, "judge memory (and later perf) for training, not inference");
  cmd->add_option("--optimizer", f->optimizer, "with --train: sgd | momentum | adam | adamw (default adam)");
  cmd->add_option("--precision-mode", f->precision_mode, "ATC --precision_mode or --precision_mode_v2 value");
  cmd->add_option(
      "--op-select-implmode", f->op_select_implmode,
      "ATC --op_select_implmode for the precision section: high_performance (default) | high_precision");
  cmd->add_option("--dev-target", f->dev_target,
                  "the training / dev environment the perf section compares with (default cpu-dev)")
      ->default_val("cpu-dev");
  cmd->add_option("--dev-batch", f->dev_batch,
                  "batch of the dev environment (default: --batch); per-sample times decide perf then");
  cmd->add_option("--cluster", f->cluster,
                  "cluster name (data/clusters) or .json: adds the communication section");
  cmd->add_option("--ranks", f->ranks, "data-parallel ranks on the cluster");
  cmd->add_option("--inputs", f->inputs,
                  "input_K.pb folder, .pb, .npy or .npz files for the precision samples");
  cmd->add_option("--samples", f->samples,
                  "precision samples (rows), run in ceil(N / batch) random batches (default 2)");
  cmd->add_option("--seed", f->seed, "seed of the first random precision input set (default 0)");
  AddThreadsOption(*cmd, f->threads);
  cmd->add_option("--json", f->json_path,
                  "write the report as JSON to FILE ('-': stdout instead of the summary)");
  cmd->add_option("--html", f->html_path, "write a self-contained HTML report with plots to FILE");
  cmd->add_option("--trace", f->trace_path, "write the predicted timeline as Chrome-trace JSON to FILE");
  cmd->add_option("--fail-on", f->fail_on,
                  "exit 1 when one of these sections fails: " + Join(report::SectionKeys()) + ", all");
  cmd->add_option("--skip", f->skip, "sections not to run, e.g. precision,comm (the report says skipped)");
  cmd->add_option("--max-slowdown", f->max_slowdown, "perf fails when deploy time / dev time exceeds X");
  return {cmd, [f] { return RunAnalyze(*f); }};
}

}  // namespace npugap::cli
