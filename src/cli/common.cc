#include "cli/common.h"

#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "npugap/exec/parallel.h"
#include "npugap/onnx/import.h"

namespace npugap::cli {

void AddModelOptions(CLI::App& cmd, ModelOptions& options) {
  cmd.add_option("model", options.model_path, "ONNX model file")->required();
  cmd.add_option("--shape", options.shapes, "bind an input's shape, NAME=1x3x224x224 (repeatable)");
  cmd.add_option("--batch", options.batch, "bind every input's leading symbolic dim to N");
}

void AddThreadsOption(CLI::App& cmd, int& threads) {
  threads = exec::DefaultNumThreads();
  cmd.add_option("--threads", threads, "worker threads (default: cores)")->check(CLI::PositiveNumber);
}

Expected<ir::Model> LoadModelWithOptions(const ModelOptions& options, int* folded_nodes) {
  onnx_import::ImportOptions import;
  for (const auto& text : options.shapes) {
    NPUGAP_ASSIGN_OR_RETURN(auto binding, onnx_import::ParseShapeBinding(text));
    import.input_shapes.push_back(std::move(binding));
  }
  if (options.batch != 0) import.batch = options.batch;
  import.fold_shape_constants = options.fold_shapes;
  import.folded_nodes = folded_nodes;
  return onnx_import::LoadModel(options.model_path, import);
}

Expected<ModelOptions> AtBatch(const ModelOptions& options, int64_t batch) {
  ModelOptions at = options;
  at.batch = batch;
  std::vector<std::pair<std::string, ir::Shape>> bindings;
  for (const auto& text : options.shapes) {
    NPUGAP_ASSIGN_OR_RETURN(auto binding, onnx_import::ParseShapeBinding(text));
    bindings.push_back(std::move(binding));
  }
  int64_t current = options.batch;
  for (const auto& [name, dims] : bindings) {
    if (current > 0) break;
    if (!dims.empty()) current = dims[0];
  }
  if (current <= 0) return at;
  at.shapes.clear();
  for (auto& [name, dims] : bindings) {
    if (!dims.empty() && dims[0] == current) dims[0] = batch;
    at.shapes.push_back(fmt::format("{}={}", name, fmt::join(dims, "x")));
  }
  return at;
}

void AddTargetOption(CLI::App& cmd, TargetOptions& options) {
  cmd.add_option("--target", options.spec,
                 "target profile: a built-in name (npugap targets) or a profile .json (default " +
                     std::string(target::kDefaultTarget) + ")");
}

Expected<target::Target> LoadTargetWithOptions(const TargetOptions& options) {
  return target::LoadTarget(options.spec);
}

int ReportError(const Status& status) {
  std::string message = status.message();
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  std::cerr << "npugap: error: " << message << "\n";
  return kExitBadInput;
}

}  // namespace npugap::cli
