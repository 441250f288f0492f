// `npugap run MODEL`: runs the FP32 reference executor and summarises each output.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "cli/run_precision.h"
#include "npugap/exec/compare.h"
#include "npugap/exec/executor.h"
#include "npugap/exec/random_inputs.h"
#include "npugap/onnx/input_files.h"
#include "npugap/onnx/io_files.h"

namespace npugap::cli {
namespace {
namespace fs = std::filesystem;

struct RunOptions {
  ModelOptions model;
  std::vector<std::string> inputs;
  std::string expect_dir;
  std::string save_dir;
  uint64_t seed = 0;
  int repeat = 1;
  int threads = 1;
  bool json = false;
  bool profile = false;
  bool no_fusion = false;
  PrecisionRunFlags precision;  // any set: emulated numerics (run_precision.h)
};

// Time per op type over one run, measured between observer calls (so each node's share includes
// freeing its dead inputs). Sorted by total time, largest first.
struct OpTypeTime {
  std::string op_type;
  int64_t count = 0;
  double ms = 0;
};

struct Summary {
  double mean = 0, std = 0, min = 0, max = 0;
  int64_t non_finite = 0;
  std::vector<double> first;
};

Summary Summarise(const ir::Tensor& t) {
  Summary s;
  if (t.dtype() == ir::DType::kString || t.numel() == 0) return s;
  double sum = 0, sq = 0;
  int64_t n = 0;
  s.min = INFINITY;
  s.max = -INFINITY;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = exec::ElementAsDouble(t, i);
    if (i < 5) s.first.push_back(v);
    if (!std::isfinite(v)) {
      ++s.non_finite;
      continue;
    }
    sum += v;
    sq += v * v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    ++n;
  }
  if (n > 0) {
    s.mean = sum / static_cast<double>(n);
    s.std = std::sqrt(std::max(0.0, sq / static_cast<double>(n) - s.mean * s.mean));
  } else {
    s.min = s.max = NAN;
  }
  return s;
}

// Output names made safe as file names: anything but [A-Za-z0-9._-] becomes '_'.
std::string FileSafe(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  if (s[0] == '.') s[0] = '_';
  return s;
}

int RunRun(const RunOptions& o) {
  auto model = LoadModelWithOptions(o.model);
  if (!model.ok()) return ReportError(model.status());
  const ir::Graph& g = model->graph;
  // One run function over the FP32 executor or the emulated runner; the observer is the FP32 one.
  std::function<Expected<std::vector<ir::Tensor>>(const std::vector<ir::Tensor>&, const exec::NodeObserver&)>
      run;
  std::optional<exec::Executor> executor;
  EmulatedRun emulated;
  numerics::RoundStats rounding;
  bool counting = false;  // rounding totals are taken from the first run
  if (o.precision.active()) {
    auto e = PrepareEmulatedRun(*model, o.precision, o.threads, !o.no_fusion);
    if (!e.ok()) return ReportError(e.status());
    emulated = std::move(e).value();
    for (const auto& w : emulated.summary["warnings"])
      std::cerr << "npugap: warning: " << w.get<std::string>() << "\n";
    run = [&](const std::vector<ir::Tensor>& in, const exec::NodeObserver& obs) {
      return emulated.runner->Run(in, [&](const ir::Node& n, const std::vector<ir::Tensor>& outs,
                                          const std::vector<numerics::RoundStats>& stats) {
        if (counting) {
          for (const auto& st : stats) rounding += st;
        }
        if (obs) obs(n, outs);
      });
    };
  } else {
    auto e = exec::Executor::Create(*model, {o.threads, !o.no_fusion});
    if (!e.ok()) return ReportError(e.status());
    executor.emplace(std::move(e).value());
    run = [&](const std::vector<ir::Tensor>& in, const exec::NodeObserver& obs) {
      return executor->Run(in, obs);
    };
  }
  auto inputs = o.inputs.empty() ? exec::RandomInputs(g, o.seed) : onnx_import::LoadInputFiles(g, o.inputs);
  if (!inputs.ok()) return ReportError(inputs.status());
  // NaN / Inf in the inputs are reported, not refused: the emulator carries them as the NPU would.
  int64_t inputs_non_finite = 0;
  for (const ir::Tensor& t : *inputs) {
    if (t.dtype() != ir::DType::kFloat32) continue;
    for (float v : t.span<const float>()) inputs_non_finite += std::isfinite(v) ? 0 : 1;
  }
  std::vector<ir::Tensor> expected;
  if (!o.expect_dir.empty()) {
    auto e = onnx_import::ReadTensorProtoDir(o.expect_dir, "output");
    if (!e.ok()) return ReportError(e.status());
    if (e->size() != g.outputs.size()) {
      return ReportError(
          Status::InvalidArgument(fmt::format("{}: {} output_K.pb files but the model has {} outputs",
                                              o.expect_dir, e->size(), g.outputs.size())));
    }
    expected = std::move(e).value();
  }

  std::vector<double> times_ms;
  std::vector<ir::Tensor> outputs;
  std::map<std::string, OpTypeTime> profile;
  std::vector<OpTypeTime> node_times;  // op_type holds "name (op type)"
  for (int r = 0; r < o.repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    // The last run is profiled when asked (the first pays one-time costs).
    const bool profiled = o.profile && r == o.repeat - 1;
    auto last = start;
    exec::NodeObserver observer;
    if (profiled) {
      profile.clear();
      node_times.clear();
      observer = [&](const ir::Node& node, const std::vector<ir::Tensor>&) {
        const auto now = std::chrono::steady_clock::now();
        OpTypeTime& t = profile[node.op_type];
        t.op_type = node.op_type;
        ++t.count;
        const double ms = std::chrono::duration<double, std::milli>(now - last).count();
        t.ms += ms;
        node_times.push_back({node.name + " (" + node.op_type + ")", 1, ms});
        last = now;
      };
    }
    // Emulated: rounding totals come from the first run only (every run is the same), so
    // timed runs 2..K carry no statistics observer.
    const bool count_rounding = o.precision.active() && r == 0;
    if (o.precision.active() && !count_rounding && !observer) {
      // Emulated runs without an observer take the runner's fast path.
      auto result = emulated.runner->Run(*inputs);
      const auto stop = std::chrono::steady_clock::now();
      if (!result.ok()) return ReportError(result.status().WithContext(model->path));
      times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
      outputs = std::move(result).value();
      continue;
    }
    counting = count_rounding;
    auto result = run(*inputs, observer);
    const auto stop = std::chrono::steady_clock::now();
    if (!result.ok()) return ReportError(result.status().WithContext(model->path));
    times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
    outputs = std::move(result).value();
  }
  // Median of runs 2..K: the first run pays one-time costs (primitive creation, weight packing).
  std::vector<double> timed(times_ms.size() > 1 ? times_ms.begin() + 1 : times_ms.begin(), times_ms.end());
  std::sort(timed.begin(), timed.end());
  const double elapsed_ms = timed[timed.size() / 2];

  if (!o.save_dir.empty()) {
    std::error_code ec;
    fs::create_directories(o.save_dir, ec);
    if (ec) return ReportError(Status::IoError(fmt::format("{}: {}", o.save_dir, ec.message())));
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string path =
          (fs::path(o.save_dir) / (FileSafe(g.values[static_cast<size_t>(g.outputs[i])].name) + ".npy"))
              .string();
      if (auto s = onnx_import::WriteNpy(path, outputs[i]); !s.ok()) return ReportError(s);
    }
  }

  bool match = true;
  std::vector<std::string> mismatch_reasons(outputs.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto cmp = exec::CompareTensors(outputs[i], expected[i]);
    if (!cmp.match) {
      match = false;
      mismatch_reasons[i] = cmp.reason;
    }
  }

  nlohmann::json j;
  j["model"] = model->path;
  j["elapsed_ms"] = elapsed_ms;
  j["runs_ms"] = times_ms;
  j["threads"] = o.threads;
  j["inputs_non_finite"] = inputs_non_finite;
  if (o.precision.active()) {
    j["precision"] = emulated.summary;
    j["precision"]["rounding"] = RoundingTotals(rounding);
  }
  j["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ir::Tensor& t = outputs[i];
    const Summary s = Summarise(t);
    nlohmann::json out = {{"name", g.values[static_cast<size_t>(g.outputs[i])].name},
                          {"dtype", std::string(ir::DTypeName(t.dtype()))},
                          {"shape", t.shape()},
                          {"mean", s.mean},
                          {"std", s.std},
                          {"min", s.min},
                          {"max", s.max},
                          {"non_finite", s.non_finite},
                          {"first", s.first}};
    if (!expected.empty()) {
      out["match"] = mismatch_reasons[i].empty();
      if (!mismatch_reasons[i].empty()) out["mismatch"] = mismatch_reasons[i];
    }
    j["outputs"].push_back(out);
  }
  if (!expected.empty()) j["match"] = match;
  std::vector<OpTypeTime> by_time;
  for (auto& [name, t] : profile) by_time.push_back(t);
  std::sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  std::sort(node_times.begin(), node_times.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  if (node_times.size() > 10) node_times.resize(10);
  if (o.profile) {
    j["profile"] = nlohmann::json::array();
    for (const auto& t : by_time)
      j["profile"].push_back({{"op_type", t.op_type}, {"count", t.count}, {"ms", t.ms}});
    j["slowest_nodes"] = nlohmann::json::array();
    for (const auto& t : node_times) j["slowest_nodes"].push_back({{"node", t.op_type}, {"ms", t.ms}});
  }

  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("model {}  ({} threads)\n", model->path, o.threads);
    if (inputs_non_finite > 0) std::cout << fmt::format("inputs: {} NaN/Inf values\n", inputs_non_finite);
    if (o.precision.active()) {
      const auto& p = j["precision"];
      std::string units;
      for (const auto& [u, n] : p["units"].items()) units += fmt::format(" {} {}", n.get<int64_t>(), u);
      std::cout << fmt::format(
          "emulated {} numerics, precision mode {}, overflow {}: nodes{}; {} casts inserted\n",
          p["target"].get<std::string>(), p["precision_mode"].get<std::string>(),
          p["overflow"].get<std::string>(), units, p["casts"].get<size_t>());
      std::cout << fmt::format("rounding: {} overflowed, {} inf/nan, {} saturated, {} flushed to zero\n",
                               rounding.overflow, rounding.inf_nan, rounding.saturated, rounding.flushed);
      const auto& bits = p["cube_accumulator_bits"];
      std::cout << fmt::format(
          "op_select_implmode {}; cube accumulator: {}\n", p["op_select_implmode"].get<std::string>(),
          bits.is_null() ? std::string("exact fp32")
                         : fmt::format("{} fraction bits per 16-wide fractal (model)", bits.get<int>()));
      for (const auto& n : p["notes"]) std::cout << "note: " << n.get<std::string>() << "\n";
    }
    for (const auto& out : j["outputs"]) {
      std::string first;
      for (const auto& v : out["first"]) first += fmt::format(" {:.6g}", v.get<double>());
      std::cout << fmt::format(
          "output {:<20} {}[{}]  mean {:.6g}  std {:.6g}  min {:.6g}  max {:.6g}  first:{}\n",
          out["name"].get<std::string>(), out["dtype"].get<std::string>(),
          ir::ShapeToString(out["shape"].get<ir::Shape>()), out["mean"].get<double>(),
          out["std"].get<double>(), out["min"].get<double>(), out["max"].get<double>(), first);
      if (out["non_finite"].get<int64_t>() > 0)
        std::cout << fmt::format("  {} NaN/Inf values\n", out["non_finite"].get<int64_t>());
      if (out.contains("mismatch")) std::cout << "  MISMATCH: " << out["mismatch"].get<std::string>() << "\n";
    }
    std::cout << fmt::format("elapsed {:.3f} ms{}\n", elapsed_ms,
                             o.repeat > 1 ? fmt::format(" (median of runs 2..{})", o.repeat) : "");
    if (o.profile) {
      std::cout << "profile of the last run (time between node completions):\n";
      for (const auto& t : by_time)
        std::cout << fmt::format("  {:<24} {:>5} nodes {:>10.3f} ms\n", t.op_type, t.count, t.ms);
      std::cout << "slowest nodes:\n";
      for (const auto& t : node_times) std::cout << fmt::format("  {:<50} {:>10.3f} ms\n", t.op_type, t.ms);
    }
    if (!expected.empty())
      std::cout << (match ? "match: all outputs within rtol 1e-3, atol 1e-7\n" : "match: NO\n");
  }
  return match ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command AddRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run a model with the FP32 reference executor");
  AddModelOptions(*cmd, options->model);
  cmd->add_option("--inputs", options->inputs,
                  "input_K.pb folder, .pb, .npy or .npz files (default: seeded random)");
  cmd->add_option("--expect", options->expect_dir,
                  "folder of output_K.pb to compare with (exit 1 on mismatch)");
  cmd->add_option("--save-outputs", options->save_dir, "write each output as DIR/<name>.npy");
  cmd->add_option("--seed", options->seed, "seed of the random inputs");
  cmd->add_option("--repeat", options->repeat, "run K times; elapsed_ms is the median of runs 2..K")
      ->check(CLI::PositiveNumber);
  AddThreadsOption(*cmd, options->threads);
  cmd->add_flag("--profile", options->profile, "time per op type over the last run");
  cmd->add_flag("--no-fusion", options->no_fusion,
                "run every node as written (no constant folding, Conv fusion or blocked layouts)");
  cmd->add_flag("--json", options->json, "print one JSON object");
  AddPrecisionRunFlags(*cmd, options->precision);
  return {cmd, [options] { return RunRun(*options); }};
}

}  // namespace npugap::cli
