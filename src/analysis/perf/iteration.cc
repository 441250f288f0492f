// The iteration model (iteration.h). All host constants come from the target profile's `host`
// section (eager_dispatch_per_op, graph_launch_per_kernel, jit_compile_per_op, h2d_bandwidth).
#include "npugap/analysis/perf/iteration.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "npugap/comm/data_parallel.h"

namespace npugap::analysis::perf {

Expected<ExecMode> ParseExecMode(const std::string& name) {
  if (name == "graph") return ExecMode::kGraph;
  if (name == "eager") return ExecMode::kEager;
  return Status::InvalidArgument(fmt::format("--mode '{}': unknown (valid: graph, eager)", name));
}

std::string_view ExecModeName(ExecMode m) { return m == ExecMode::kGraph ? "graph" : "eager"; }

namespace {

// TASK_QUEUE_ENABLE=1 moves the ACL half of each op's host work to a second thread
// (ascend-facts §4.4), so the main thread's cost per op is what remains. How the dispatch cost
// splits between the two stages is not published: an even split is assumed.
constexpr double kTaskQueueMainThreadShare = 0.5;

std::string Signature(const Kernel& k) {
  std::string s = k.op_type;
  for (const auto& o : k.inputs) {
    s += '|' + o.format + ':' + o.dtype + ':';
    for (int64_t d : o.shape) s += std::to_string(d) + 'x';
  }
  return s;
}

}  // namespace

Expected<IterationResult> SimulateIteration(const Lowering& lowering, const target::Target& target,
                                            const IterationOptions& o, const KernelCostFn& cost) {
  IterationResult r;
  r.mode = o.mode;
  const double launch_us = target.host.graph_launch_per_kernel.value * 1e6;
  const double dispatch_us = target.host.eager_dispatch_per_op.value * 1e6;
  const double host_per_op_us = o.task_queue ? dispatch_us * kTaskQueueMainThreadShare : dispatch_us;
  const bool jit = o.jit_compile.value_or(
      target.framework.jit_compile_default ? target.framework.jit_compile_default->value : false);
  std::set<std::string> unknown, distinct;
  double host_t = 0, device_t = 0, idle_us = 0, launch_total_us = 0;
  double backward_us = 0, forward_us = 0;
  r.kernels.reserve(lowering.kernels.size());
  for (const LoweredKernel& lk : lowering.kernels) {
    const KernelCost c = cost(lk.kernel, target);
    TimedKernel t;
    t.name = lk.kernel.name;
    t.op_type = lk.kernel.op_type;
    t.category = lk.category;
    t.phase = lk.phase;
    t.bound = c.bound;
    t.known = c.known;
    if (!c.known) unknown.insert(lk.kernel.op_type);
    distinct.insert(Signature(lk.kernel));
    double kernel_us = std::max(0.0, c.time_us);
    t.kernel_us = kernel_us;
    t.block_dim = c.block_dim;
    if (o.mode == ExecMode::kGraph) {
      t.start_us = device_t;
      t.time_us = kernel_us + launch_us;
      launch_total_us += launch_us;
      device_t += t.time_us;
    } else {
      // The host dispatches op after op; the device runs each kernel once it has been dispatched
      // and the previous kernel has finished. Device idle time waiting on the host is dispatch.
      t.host_start_us = host_t;
      t.host_us = host_per_op_us;
      host_t += host_per_op_us;
      const double ready = host_t;
      if (ready > device_t) idle_us += ready - device_t;
      t.start_us = std::max(ready, device_t);
      t.time_us = kernel_us;
      device_t = t.start_us + kernel_us;
    }
    const double kernel_ms = kernel_us / 1e3;
    switch (lk.category) {
      case Category::kCube:
        r.breakdown.cube_ms += kernel_ms;
        break;
      case Category::kVector:
        r.breakdown.vector_ms += kernel_ms;
        break;
      case Category::kTransDataCast:
        r.breakdown.transdata_cast_ms += kernel_ms;
        break;
      case Category::kAiCpu:
        r.breakdown.aicpu_ms += kernel_ms;
        break;
    }
    (lk.phase == Phase::kForward ? forward_us : backward_us) += t.time_us;
    r.device_busy_ms += kernel_ms;
    r.kernels.push_back(std::move(t));
  }
  r.unknown_op_types.assign(unknown.begin(), unknown.end());
  r.distinct_kernels = static_cast<int64_t>(distinct.size());
  r.host_ms = host_t / 1e3;
  r.breakdown.dispatch_ms = (o.mode == ExecMode::kGraph ? launch_total_us : idle_us) / 1e3;
  if (o.mode == ExecMode::kEager && jit && target.host.jit_compile_per_op) {
    r.first_run_compile_ms =
        static_cast<double>(r.distinct_kernels) * target.host.jit_compile_per_op->value * 1e3;
  }
  const double step_ms = device_t / 1e3;
  // H2D of the input batch: with prefetch it overlaps the previous step, so only what exceeds
  // the step is exposed; without it the step waits for the whole copy.
  if (target.host.h2d_bandwidth && target.host.h2d_bandwidth->value > 0) {
    r.h2d_total_ms = static_cast<double>(lowering.input_bytes) / target.host.h2d_bandwidth->value * 1e3;
    r.breakdown.h2d_ms = o.prefetch ? std::max(0.0, r.h2d_total_ms - step_ms) : r.h2d_total_ms;
  }
  if (o.cluster != nullptr && o.ranks > 1 && lowering.gradient_bytes > 0) {
    comm::DpOptions dp;
    dp.grad_bytes = static_cast<double>(lowering.gradient_bytes);
    dp.backward_s = backward_us / 1e6;
    dp.forward_s = forward_us / 1e6;
    NPUGAP_ASSIGN_OR_RETURN(comm::DpResult d, comm::ModelDataParallelStep(*o.cluster, o.ranks, dp));
    r.comm_total_ms = d.comm_s * 1e3;
    r.breakdown.comm_ms = std::max(0.0, d.exposed_comm_s * 1e3);
    r.comm_algo = d.algo;
  }
  const Breakdown& b = r.breakdown;
  r.iteration_ms =
      b.cube_ms + b.vector_ms + b.transdata_cast_ms + b.aicpu_ms + b.dispatch_ms + b.h2d_ms + b.comm_ms;
  return r;
}

std::vector<TimedKernel> TopKernels(const IterationResult& r, size_t n) {
  std::vector<TimedKernel> top = r.kernels;
  const size_t k = std::min(n, top.size());
  std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(k), top.end(),
                    [](const TimedKernel& a, const TimedKernel& b) { return a.time_us > b.time_us; });
  top.resize(k);
  return top;
}

PhaseTimes DeviceTimeByPhase(const IterationResult& r) {
  PhaseTimes t;
  for (const TimedKernel& k : r.kernels) {
    const double ms = k.time_us * 1e-3;
    switch (k.phase) {
      case Phase::kForward:
        t.forward_ms += ms;
        break;
      case Phase::kBackward:
        t.backward_ms += ms;
        break;
      case Phase::kOptimizer:
        t.optimizer_ms += ms;
        break;
    }
  }
  return t;
}

}  // namespace npugap::analysis::perf
