// Registers `npugap perf MODEL ...` on its own until the `perf` subcommand of branch perf-model
// (which adds the --kernels mode) is merged; then both modes share that subcommand.
#include <memory>

#include "cli/perf_model_command.h"

namespace npugap::cli {

Command AddPerfModelCommand(CLI::App& app) {
  struct State {
    PerfModelOptions model;
    TargetOptions target;
    bool json = false;
  };
  auto s = std::make_shared<State>();
  CLI::App* cmd = app.add_subcommand("perf", "predicted iteration time on the target and where it goes");
  AddPerfModelOptions(*cmd, s->model);
  AddTargetOption(*cmd, s->target);
  cmd->add_flag("--json", s->json, "JSON output");
  return {cmd, [s, cmd] {
            s->model.batch_given = cmd->get_option("--batch")->count() > 0;
            if (s->model.model.model_path.empty()) {
              return ReportError(Status::InvalidArgument("perf: give MODEL (an ONNX file)"));
            }
            return RunPerfModel(s->model, s->target, s->json);
          }};
}

}  // namespace npugap::cli
