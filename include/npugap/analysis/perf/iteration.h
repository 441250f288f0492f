// The iteration model: how long one training or inference step takes on a target, given the
// lowered kernel sequence and a per-kernel cost function (PredictKernel in production, a fixed
// function in tests). Graph mode sinks the whole graph to the device (no per-op host cost, a
// per-kernel scheduling cost); eager single-op mode pays a host dispatch per op, pipelined with
// the device when TASK_QUEUE_ENABLE is on, plus a first-run compile per distinct kernel when
// jit_compile is on. The input batch crosses PCIe (overlapped with the previous step when
// prefetched), and data-parallel training all-reduces its gradients (comm/data_parallel.h).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/lower/lower.h"
#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf {

using KernelCostFn = std::function<KernelCost(const Kernel&, const target::Target&)>;

enum class ExecMode : uint8_t { kGraph, kEager };
Expected<ExecMode> ParseExecMode(const std::string& name);  // "graph" | "eager"; errors list them
std::string_view ExecModeName(ExecMode m);

struct IterationOptions {
  ExecMode mode = ExecMode::kGraph;
  bool task_queue = true;           // TASK_QUEUE_ENABLE (default 1, ascend-facts §4.4)
  std::optional<bool> jit_compile;  // empty: the target's framework default
  bool prefetch = true;             // the next batch's H2D copy overlaps this step
  // Data-parallel gradient all-reduce; ranks <= 1 or no cluster: none.
  const comm::Cluster* cluster = nullptr;
  int ranks = 1;
};

// One kernel on the timeline (microseconds from the start of the step).
struct TimedKernel {
  std::string name;
  std::string op_type;
  Category category = Category::kVector;
  Phase phase = Phase::kForward;
  Bound bound = Bound::kLatency;
  double time_us = 0;        // device time, launch cost included
  double kernel_us = 0;      // the cost model's time of the kernel alone (no graph launch cost)
  int block_dim = 0;         // cores it runs on (given, or chosen by the cost model)
  double start_us = 0;       // on the device track
  double host_start_us = 0;  // eager: when the host dispatched it
  double host_us = 0;        // eager: host dispatch time of this kernel
  bool known = true;
};

struct Breakdown {
  double cube_ms = 0, vector_ms = 0, transdata_cast_ms = 0, aicpu_ms = 0;  // device kernel time
  double dispatch_ms = 0;  // graph: per-kernel scheduling; eager: device idle waiting on the host
  double h2d_ms = 0;       // exposed input copy
  double comm_ms = 0;      // exposed gradient all-reduce
};

struct IterationResult {
  ExecMode mode = ExecMode::kGraph;
  double iteration_ms = 0;  // sum of the breakdown
  Breakdown breakdown;
  double device_busy_ms = 0;        // kernels only
  double host_ms = 0;               // eager: total host dispatch time
  double h2d_total_ms = 0;          // the copy itself, exposed or not
  double comm_total_ms = 0;         // all-reduce time, exposed or not
  double first_run_compile_ms = 0;  // eager + jit_compile: added once, to the first step only
  int64_t distinct_kernels = 0;
  std::vector<TimedKernel> kernels;           // in execution order
  std::vector<std::string> unknown_op_types;  // kernels the cost model has no rule for
  std::string comm_algo;
};

Expected<IterationResult> SimulateIteration(const Lowering& lowering, const target::Target& target,
                                            const IterationOptions& options, const KernelCostFn& cost);

// Device kernel time of each phase of a step (what a data-parallel model overlaps with the
// gradient all-reduce: the backward).
struct PhaseTimes {
  double forward_ms = 0, backward_ms = 0, optimizer_ms = 0;
};
PhaseTimes DeviceTimeByPhase(const IterationResult& r);

// The `n` kernels with the largest time, largest first.
std::vector<TimedKernel> TopKernels(const IterationResult& r, size_t n);

}  // namespace npugap::analysis::perf
