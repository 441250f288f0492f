// `npugap targets [--json]` lists the target profiles; `npugap targets show NAME|FILE [--json]`
// prints one profile with the source and confidence of every number.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <map>

#include "cli/common.h"

namespace npugap::cli {
namespace {

struct TargetsOptions {
  bool json = false;
  CLI::App* show = nullptr;
  TargetOptions show_target;
  bool show_json = false;
};

std::string Human(double v, const char* const* units, int n, double step) {
  int i = 0;
  while (i + 1 < n && v >= step) {
    v /= step;
    ++i;
  }
  return fmt::format("{:.4g} {}", v, units[i]);
}
std::string HumanBytes(double v) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return Human(v, kUnits, 5, 1024);
}
std::string HumanBandwidth(double v) {
  static const char* const kUnits[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  return Human(v, kUnits, 5, 1000);
}

// The few numbers that tell targets apart; the same keys in the list and in `show --json`.
nlohmann::json SummaryJson(const target::Target& t) {
  const auto fp16 = t.PeakFlops("fp16");
  return {{"name", t.name},
          {"description", t.description},
          {"kind", t.kind},
          {"cube_cores", t.compute.cube_cores.value},
          {"vector_cores", t.compute.vector_cores.value},
          {"clock_mhz", t.compute.clock.value / 1e6},
          {"device_memory_bytes", t.memory.device.value},
          {"memory_bandwidth_bytes_per_s", t.memory.bandwidth.value},
          {"peak_fp16_tflops", fp16 ? nlohmann::json(*fp16 / 1e12) : nlohmann::json(nullptr)},
          {"default", t.name == target::kDefaultTarget}};
}

void PrintWarnings(const target::Target& t) {
  for (const std::string& w : t.warnings) std::cerr << "npugap: warning: " << w << "\n";
}

int RunList(const TargetsOptions& o) {
  std::vector<target::Target> targets;
  for (const std::string& name : target::ListTargets()) {
    auto t = target::LoadTarget(name);
    if (!t.ok()) return ReportError(t.status());  // a broken built-in profile: fail loudly, not silently skip
    targets.push_back(std::move(*t));
  }
  if (o.json) {
    nlohmann::json j;
    j["default"] = std::string(target::kDefaultTarget);
    j["targets"] = nlohmann::json::array();
    for (const auto& t : targets) j["targets"].push_back(SummaryJson(t));
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{:<13} {:<6} {:>9} {:>9} {:>11} {:>11} {:>13}  {}\n", "name", "kind", "cube/vec",
                           "clock MHz", "memory", "bandwidth", "peak fp16", "description");
  for (const auto& t : targets) {
    const auto fp16 = t.PeakFlops("fp16");
    std::cout << fmt::format(
        "{:<13} {:<6} {:>9} {:>9.0f} {:>11} {:>11} {:>13}  {}{}\n", t.name, t.kind,
        fmt::format("{}/{}", t.compute.cube_cores.value, t.compute.vector_cores.value),
        t.compute.clock.value / 1e6, HumanBytes(static_cast<double>(t.memory.device.value)),
        HumanBandwidth(t.memory.bandwidth.value), fp16 ? fmt::format("{:.1f} TFLOPS", *fp16 / 1e12) : "-",
        t.description, t.name == target::kDefaultTarget ? " [default]" : "");
  }
  std::cout << "\n`npugap targets show NAME` prints every number with its source; `--target FILE.json` loads "
               "your own.\n";
  return kExitOk;
}

int RunShow(const TargetsOptions& o) {
  auto loaded = LoadTargetWithOptions(o.show_target);
  if (!loaded.ok()) return ReportError(loaded.status());
  const target::Target& t = *loaded;
  PrintWarnings(t);
  std::map<std::string, int> by_confidence;
  for (const auto& f : t.facts) ++by_confidence[std::string(target::ConfidenceName(f.origin.confidence))];

  if (o.json || o.show_json) {
    nlohmann::json j = SummaryJson(t);
    j["origin"] = t.origin;
    j["warnings"] = t.warnings;
    j["confidence_counts"] = by_confidence;
    j["profile"] = nlohmann::json::parse(t.json_text);  // already validated, so it parses
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{}  ({}, {})\n{}\n\n", t.name, t.kind, t.origin, t.description);
  for (const auto& f : t.facts) {
    std::cout << fmt::format("{:<44} {:<24} {}\n    {}\n", f.field,
                             f.unit.empty() ? f.value : f.value + " " + f.unit,
                             target::ConfidenceName(f.origin.confidence), f.origin.source);
  }
  if (t.compiler) {
    for (const auto& p : t.compiler->custom_ops) {
      std::string types;
      for (const auto& op : p.op_types) types += (types.empty() ? "" : ", ") + op;
      std::cout << fmt::format("custom-op plugin: domain '{}' ({}) on {}\n", p.domain, types, p.engine);
    }
  }
  std::cout << fmt::format("\n{} facts:", t.facts.size());
  for (const char* c : {"official", "config", "third-party", "derived", "assumed"}) {
    std::cout << fmt::format(" {} {}", by_confidence[c], c);
  }
  std::cout << "\n";
  return kExitOk;
}

}  // namespace

Command AddTargetsCommand(CLI::App& app) {
  auto o = std::make_shared<TargetsOptions>();
  CLI::App* cmd =
      app.add_subcommand("targets", "list the target profiles (Ascend NPUs and development references)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->require_subcommand(0, 1);
  o->show = cmd->add_subcommand("show", "print one target profile with the source of every number");
  o->show->add_option("target", o->show_target.spec, "built-in target name or path of a profile .json")
      ->required();
  o->show->add_flag("--json", o->show_json, "print one JSON object");
  return {cmd, [o] { return o->show->parsed() ? RunShow(*o) : RunList(*o); }};
}

}  // namespace npugap::cli
