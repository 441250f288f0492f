// AI CPU kernels: ops that the AI Core op store lacks run on the SoC's ARM AI CPU cores, one task
// per kernel, at CPU speed, plus the cost of launching the task and synchronising with the AI Core
// stream (docs/perf.md "AI CPU").
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

KernelCost AiCpuCost(const Kernel& kernel, double ops_per_element, const target::Target& target) {
  KernelCost c;
  c.bound = Bound::kAiCpu;
  c.block_dim = 1;
  if (!target.aicpu) {
    c.known = false;
    c.note = "the target profile has no aicpu section";
    return c;
  }
  int64_t elements = 0, bytes = 0;
  for (const auto* list : {&kernel.inputs, &kernel.outputs}) {
    for (const Operand& op : *list) {
      elements = std::max(elements, Elements(op));
      bytes += Elements(op) * ItemSize(op.dtype);
    }
  }
  // One AI CPU task runs on one core; its data crosses HBM once each way.
  c.vector_us = 1e6 * static_cast<double>(elements) * std::max(ops_per_element, 1.0) /
                target.aicpu->flops_per_core.value;
  c.memory_us = 1e6 * static_cast<double>(bytes) / target.memory.bandwidth.value;
  c.overhead_us = 1e6 * target.aicpu->task_overhead.value;
  c.time_us = c.overhead_us + std::max(c.vector_us, c.memory_us);
  return c;
}

}  // namespace npugap::analysis::perf::internal
