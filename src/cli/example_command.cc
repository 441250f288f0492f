// `npugap example simplenet -o FILE.onnx [--batch N]`: writes the seed's SimpleNet.
#include <iostream>

#include "cli/common.h"
#include "npugap/onnx/export.h"
#include "npugap/onnx/io_files.h"

namespace npugap::cli {
namespace {

struct ExampleOptions {
  std::string name;
  std::string output;
  int64_t batch = 1;
  bool dynamic_batch = false;
  uint64_t seed = 0;
};

int RunExample(const ExampleOptions& o) {
  if (o.batch <= 0) return ReportError(Status::InvalidArgument("--batch " + std::to_string(o.batch) + ": must be positive"));
  const ir::Model model = onnx_import::BuildSimpleNet(o.dynamic_batch ? 0 : o.batch, o.seed);
  auto bytes = onnx_import::SerializeModel(model);
  if (!bytes.ok()) return ReportError(bytes.status());
  if (auto s = onnx_import::WriteFileAtomically(o.output, *bytes); !s.ok()) return ReportError(s);
  const std::string batch = o.dynamic_batch ? std::string("symbolic 'batch'") : std::to_string(o.batch);
  std::cout << "wrote " << o.output << " (SimpleNet, batch " << batch << ", " << bytes->size() << " bytes)\n";
  return kExitOk;
}

}  // namespace

Command AddExampleCommand(CLI::App& app) {
  auto options = std::make_shared<ExampleOptions>();
  CLI::App* cmd = app.add_subcommand("example", "write a generated example model (simplenet: the seed's model)");
  cmd->add_option("name", options->name, "example to write")->required()->check(CLI::IsMember({"simplenet"}));
  cmd->add_option("-o,--output", options->output, "output .onnx file")->required();
  cmd->add_option("--batch", options->batch, "batch size baked into the model");
  cmd->add_flag("--dynamic-batch", options->dynamic_batch,
                "write a symbolic batch dim 'batch' instead (bind it later with --batch)")
      ->excludes("--batch");
  cmd->add_option("--seed", options->seed, "weight seed");
  return {cmd, [options] { return RunExample(*options); }};
}

}  // namespace npugap::cli
