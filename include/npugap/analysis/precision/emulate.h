// Emulated execution: the FP32 executor's kernels run under a numerics plan (plan.h). Inputs of
// each node are rounded to its input format, the kernel computes (cube ops from rounded operands,
// exact products, fp32 accumulation), and outputs are rounded to the node's output format with the
// plan's overflow mode. Rounding statistics are reported per output for the precision analysis.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "npugap/analysis/precision/plan.h"
#include "npugap/base/status.h"
#include "npugap/exec/executor.h"
#include "npugap/ir/graph.h"
#include "npugap/numerics/format.h"

namespace npugap::analysis::precision {

// Sees each node of the main graph with its (already rounded) outputs and what rounding did to them.
using EmulationObserver = std::function<void(const ir::Node& node, const std::vector<ir::Tensor>& outputs,
                                             const std::vector<numerics::RoundStats>& output_stats)>;

class EmulatedRunner {
 public:
  // options.fuse is honoured: unfused, every original node is observed (the precision analysis);
  // fused, fused kernels round where the NPU's fused kernel would (npugap run). uniform_* plans
  // always run unfused: their rounding after every op as written is the point of the mode.
  static Expected<EmulatedRunner> Create(const ir::Model& model, PrecisionPlan plan,
                                         exec::ExecutorOptions options = {});
  // Graph inputs are rounded to the format the plan gives them before the first node.
  Expected<std::vector<ir::Tensor>> Run(const std::vector<ir::Tensor>& inputs,
                                        const EmulationObserver& observer = nullptr) const;
  const PrecisionPlan& plan() const;

 private:
  struct State;
  explicit EmulatedRunner(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

// Where a run of `plan` on this host departs from the kernels the plan names, one line each (none
// when it does not): on a CPU where oneDNN has no bf16 convolution, the uniform_bf16 Conv nodes
// run the fp32 convolution rounded to bf16 once, so their bits are not PyTorch's. The renderers
// show the lines as notes next to the run's results.
std::vector<std::string> HostRunNotes(const PrecisionPlan& plan);

}  // namespace npugap::analysis::precision
