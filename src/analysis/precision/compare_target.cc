// The emulated target as a TracedRun: precision::EmulatedRunner, unfused, so that every node of
// the model is observed with its rounded outputs and rounding statistics.
#include <memory>

#include "npugap/analysis/precision/compare.h"

namespace npugap::analysis::precision {

Expected<TracedRun> MakeTargetRun(const ir::Model& model, PrecisionPlan plan, int num_threads) {
  NPUGAP_ASSIGN_OR_RETURN(EmulatedRunner runner,
                          EmulatedRunner::Create(model, std::move(plan), {num_threads, /*fuse=*/false}));
  auto shared = std::make_shared<EmulatedRunner>(std::move(runner));
  return TracedRun([shared](const std::vector<ir::Tensor>& inputs, const EmulationObserver& observer) {
    return shared->Run(inputs, observer);
  });
}

}  // namespace npugap::analysis::precision
