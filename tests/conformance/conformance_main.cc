// Runs the ONNX backend test cases shipped by Debian's libonnx-testdata through npugap's importer
// and executor, and compares outputs at the backend tests' tolerance (rtol 1e-3, atol 1e-7).
// A case whose model uses an op, dtype or value kind npugap does not implement is "unsupported",
// never "passed". Prints per-folder counts and writes every non-passing case with its reason.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "npugap/exec/compare.h"
#include "npugap/exec/executor.h"
#include "npugap/onnx/import.h"
#include "npugap/onnx/io_files.h"

namespace fs = std::filesystem;
using namespace npugap;

namespace {

enum class Outcome { kPassed, kFailed, kUnsupported };

struct CaseResult {
  Outcome outcome;
  std::string reason;
};

CaseResult Classify(const Status& s) {
  return {s.code() == StatusCode::kUnsupported ? Outcome::kUnsupported : Outcome::kFailed, s.message()};
}

ir::Tensor AsDeclaredBFloat16(const ir::Tensor& t, ir::DType declared) {
  if (declared != ir::DType::kBFloat16 || t.dtype() != ir::DType::kUInt16) return t;
  ir::Tensor copy = ir::Tensor::Empty(ir::DType::kBFloat16, t.shape());
  std::memcpy(copy.raw_data(), t.raw_data(), t.nbytes());
  return copy;
}

CaseResult RunCase(const fs::path& dir, int threads) {
  auto model = onnx_import::LoadModel((dir / "model.onnx").string());
  if (!model.ok()) return Classify(model.status());
  for (int id : model->graph.inputs) {
    if (!model->graph.values[static_cast<size_t>(id)].type.is_tensor) return {Outcome::kUnsupported, "sequence/optional input"};
  }
  for (int id : model->graph.outputs) {
    if (!model->graph.values[static_cast<size_t>(id)].type.is_tensor) return {Outcome::kUnsupported, "sequence/optional output"};
  }
  auto exec = exec::Executor::Create(*model, {threads});
  if (!exec.ok()) return Classify(exec.status());
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return {Outcome::kFailed, "no test_data_set folder"};
  for (const auto& set : sets) {
    auto inputs = onnx_import::ReadTensorProtoDir(set.string(), "input");
    if (!inputs.ok()) return Classify(inputs.status());
    auto expected = onnx_import::ReadTensorProtoDir(set.string(), "output");
    if (!expected.ok()) return Classify(expected.status());
    // ONNX 1.12's backend data stores bfloat16 tensors with data_type UINT16 (same bits); read
    // them as the bfloat16 the model declares.
    for (size_t i = 0; i < inputs->size() && i < model->graph.inputs.size(); ++i) {
      const auto& declared = model->graph.values[static_cast<size_t>(model->graph.inputs[i])].type;
      (*inputs)[i] = AsDeclaredBFloat16((*inputs)[i], declared.dtype);
    }
    for (size_t i = 0; i < expected->size() && i < model->graph.outputs.size(); ++i) {
      const auto& declared = model->graph.values[static_cast<size_t>(model->graph.outputs[i])].type;
      (*expected)[i] = AsDeclaredBFloat16((*expected)[i], declared.dtype);
    }
    auto outputs = exec->Run(*inputs);
    if (!outputs.ok()) return Classify(outputs.status());
    if (outputs->size() != expected->size()) {
      return {Outcome::kFailed, fmt::format("{} outputs, expected {}", outputs->size(), expected->size())};
    }
    for (size_t i = 0; i < outputs->size(); ++i) {
      auto cmp = exec::CompareTensors((*outputs)[i], (*expected)[i]);
      if (!cmp.match) {
        return {Outcome::kFailed, fmt::format("{} output {}: {}", set.filename().string(), i, cmp.reason)};
      }
    }
  }
  return {Outcome::kPassed, ""};
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  std::string p;
  while (std::getline(ss, p, ',')) {
    if (!p.empty()) parts.push_back(p);
  }
  return parts;
}

void Usage() {
  std::cout << "usage: npugap_conformance --data DIR [--filter REGEX] [--folders a,b] [--report FILE]\n"
               "         [--require-all folder,...] [--min-pass folder=ratio,...] [--threads N] [--verbose]\n"
               "Runs ONNX backend test cases and prints passed / failed / unsupported per folder.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "/usr/share/libonnx-testdata/data";
  std::string filter;
  std::string report;
  std::vector<std::string> folders = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  std::vector<std::string> require_all;
  std::map<std::string, double> min_pass;
  int threads = 1;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--data") data = next();
    else if (a == "--filter") filter = next();
    else if (a == "--report") report = next();
    else if (a == "--folders") folders = SplitComma(next());
    else if (a == "--require-all") require_all = SplitComma(next());
    else if (a == "--min-pass") {
      for (const auto& kv : SplitComma(next())) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos) { std::cerr << "error: --min-pass " << kv << ": expected folder=ratio\n"; return 2; }
        min_pass[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
      }
    }
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--verbose") verbose = true;
    else if (a == "--help" || a == "-h") { Usage(); return 0; }
    else { std::cerr << "error: unknown argument " << a << "\n"; Usage(); return 2; }
  }
  const std::regex re(filter.empty() ? ".*" : filter);
  std::ostringstream lines;
  bool requirements_met = true;
  int total_passed = 0, total_failed = 0, total_unsupported = 0;
  for (const auto& folder : folders) {
    const fs::path root = fs::path(data) / folder;
    if (!fs::is_directory(root)) {
      std::cerr << "error: " << root.string() << ": no such folder\n";
      return 2;
    }
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.is_directory() && std::regex_search(e.path().filename().string(), re)) cases.push_back(e.path());
    }
    std::sort(cases.begin(), cases.end());
    int passed = 0, failed = 0, unsupported = 0;
    for (const auto& c : cases) {
      const CaseResult r = RunCase(c, threads);
      const char* tag = r.outcome == Outcome::kPassed ? "passed" : r.outcome == Outcome::kFailed ? "FAILED" : "unsupported";
      (r.outcome == Outcome::kPassed ? passed : r.outcome == Outcome::kFailed ? failed : unsupported)++;
      if (r.outcome != Outcome::kPassed) {
        lines << folder << "/" << c.filename().string() << "\t" << tag << "\t" << r.reason << "\n";
        if (verbose) std::cout << "  " << folder << "/" << c.filename().string() << ": " << tag << ": " << r.reason << "\n";
      }
    }
    const int n = passed + failed + unsupported;
    std::cout << fmt::format("{:<18} passed {:4}  failed {:4}  unsupported {:4}  of {:4}  ({:.1f}% passed)\n", folder,
                             passed, failed, unsupported, n, n ? 100.0 * passed / n : 0.0);
    total_passed += passed;
    total_failed += failed;
    total_unsupported += unsupported;
    if (std::find(require_all.begin(), require_all.end(), folder) != require_all.end() && passed != n) {
      std::cout << "  requirement: every " << folder << " case must pass\n";
      requirements_met = false;
    }
    if (auto it = min_pass.find(folder); it != min_pass.end() && n > 0 && passed < it->second * n) {
      std::cout << fmt::format("  requirement: at least {:.0f}% of {} cases must pass\n", it->second * 100, folder);
      requirements_met = false;
    }
  }
  if (!report.empty()) {
    std::ofstream out(report);
    out << lines.str();
  }
  std::cout << fmt::format("conformance: {} passed, {} failed, {} unsupported\n", total_passed, total_failed,
                           total_unsupported);
  return requirements_met ? 0 : 1;
}
