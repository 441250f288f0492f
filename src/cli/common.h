// Pieces every subcommand shares: model options, error reporting, exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::cli {

// Exit codes of every command.
constexpr int kExitOk = 0;
constexpr int kExitCheckFailed = 1;  // a comparison or a gap over its threshold
constexpr int kExitBadInput = 2;     // bad file, flag, model or unsupported content

struct ModelOptions {
  std::string model_path;
  std::vector<std::string> shapes;  // NAME=DIMS
  int64_t batch = 0;                // 0: not given
  // Fold shape sub-graphs at import (ImportOptions::fold_shape_constants): the commands that
  // predict what ATC compiles (analyze, memory, perf MODEL, check) set it.
  bool fold_shapes = false;
};

// Adds MODEL, --shape and --batch to a subcommand.
void AddModelOptions(CLI::App& cmd, ModelOptions& options);
void AddThreadsOption(CLI::App& cmd, int& threads);

// The same model options at another batch: --batch becomes `batch`, and every --shape binding
// whose leading dim is the current batch (--batch, or else the first binding's leading dim) gets
// `batch` there too. Without this a model bound only by --shape (a transformer's input_ids=8x128)
// imports at the same shapes for every batch, and the largest-batch search and --dev-batch see a
// fixed batch.
Expected<ModelOptions> AtBatch(const ModelOptions& options, int64_t batch);

// `folded_nodes`, when set, receives the number of shape nodes folded at import.
Expected<ir::Model> LoadModelWithOptions(const ModelOptions& options, int* folded_nodes = nullptr);

// --target NAME|FILE for commands that predict for a target; loaded after parsing, like the model.
struct TargetOptions {
  std::string spec{target::kDefaultTarget};
};
void AddTargetOption(CLI::App& cmd, TargetOptions& options);
// The profile's warnings (unknown keys) stay in Target::warnings for the command to print.
Expected<target::Target> LoadTargetWithOptions(const TargetOptions& options);

// Prints "npugap: error: <message>" on one line to stderr and returns kExitBadInput.
int ReportError(const Status& status);

// Registration of each subcommand: adds it to `app`; `run` is set to its action.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
Command AddInfoCommand(CLI::App& app);
Command AddRunCommand(CLI::App& app);
Command AddExampleCommand(CLI::App& app);
Command AddCommCommand(CLI::App& app);
Command AddTargetsCommand(CLI::App& app);
Command AddMemoryCommand(CLI::App& app);
Command AddCheckCommand(CLI::App& app);
Command AddAnalyzeCommand(CLI::App& app);
Command AddPrecisionCommand(CLI::App& app);
Command AddPerfCommand(CLI::App& app);

}  // namespace npugap::cli
