// npugap: predicts how an ONNX model will behave on a Huawei Ascend NPU before you have one.
#include <iostream>

#include "cli/common.h"

int main(int argc, char** argv) {
  using namespace npugap::cli;
  CLI::App app{"npugap — predict the gaps between a model on your dev box and on an Ascend NPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "npugap 0.1.0");
  std::vector<Command> commands = {AddInfoCommand(app), AddRunCommand(app), AddExampleCommand(app),
                                   AddTargetsCommand(app), AddCommCommand(app),
                                   AddMemoryCommand(app),
                                   AddCheckCommand(app), AddPerfCommand(app),
                                   AddAnalyzeCommand(app), AddPrecisionCommand(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::cerr << "npugap: error: " << message << " (see npugap --help)\n";
    return kExitBadInput;
  }
  for (const Command& c : commands) {
    if (c.app->parsed()) {
      try {
        return c.run();
      } catch (const std::bad_alloc&) {
        std::cerr << "npugap: error: out of memory\n";
        return kExitBadInput;
      }
    }
  }
  return kExitBadInput;
}
