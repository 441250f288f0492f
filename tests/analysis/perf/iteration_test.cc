// The iteration model with a fixed per-kernel cost, so every expected time follows from the
// profile's host constants: graph vs eager, TASK_QUEUE_ENABLE, jit compile, H2D prefetch, and
// the data-parallel all-reduce.
#include "npugap/analysis/perf/iteration.h"

#include <gtest/gtest.h>

#include "npugap/comm/cluster.h"

namespace npugap::analysis::perf {
namespace {

const target::Target& Ascend910() {
  static const target::Target t = *target::LoadTarget("ascend910");
  return t;
}

// n kernels of alternating categories, distinct shapes; the input batch is `input_bytes`.
Lowering Synthetic(int n, int64_t input_bytes, int64_t grad_bytes = 0) {
  Lowering l;
  for (int i = 0; i < n; ++i) {
    LoweredKernel k;
    k.kernel.name = "k" + std::to_string(i);
    k.kernel.op_type = i % 2 ? "Add" : "MatMul";
    k.kernel.inputs = {{"ND", "float16", {i + 1}}};
    k.category = i % 2 ? Category::kVector : Category::kCube;
    k.phase = i < n / 2 ? Phase::kForward : Phase::kBackward;
    l.kernels.push_back(k);
  }
  l.input_bytes = input_bytes;
  l.gradient_bytes = grad_bytes;
  return l;
}

KernelCostFn Fixed(double us) {
  return [us](const Kernel& k, const target::Target&) {
    KernelCost c;
    c.time_us = us;
    c.bound = k.op_type == "MatMul" ? Bound::kCube : Bound::kMemory;
    return c;
  };
}

TEST(IterationTest, GraphModePaysOnlyTheProfilesPerKernelLaunch) {
  const auto& t = Ascend910();
  const double launch_us = t.host.graph_launch_per_kernel.value * 1e6;
  auto r = SimulateIteration(Synthetic(10, 0), t, {}, Fixed(100));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(r->iteration_ms, 10 * (100 + launch_us) / 1e3, 1e-9);
  EXPECT_NEAR(r->breakdown.cube_ms, 0.5, 1e-9);
  EXPECT_NEAR(r->breakdown.vector_ms, 0.5, 1e-9);
  EXPECT_NEAR(r->breakdown.dispatch_ms, 10 * launch_us / 1e3, 1e-9);
  EXPECT_EQ(r->kernels.size(), 10u);
  EXPECT_NEAR(r->kernels[3].start_us, 3 * (100 + launch_us), 1e-9);
  EXPECT_EQ(r->first_run_compile_ms, 0);
}

TEST(IterationTest, EagerModeIsHostBoundWhenKernelsAreShorterThanDispatch) {
  const auto& t = Ascend910();
  const double dispatch_us = t.host.eager_dispatch_per_op.value * 1e6;
  IterationOptions o;
  o.mode = ExecMode::kEager;
  o.task_queue = false;
  // 1 us kernels: the device waits for the host before every kernel.
  auto r = SimulateIteration(Synthetic(20, 0), t, o, Fixed(1));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->iteration_ms, (20 * dispatch_us + 1) / 1e3, 1e-9);
  EXPECT_NEAR(r->breakdown.dispatch_ms, r->iteration_ms - 20 * 1e-3, 1e-9);
  EXPECT_NEAR(r->host_ms, 20 * dispatch_us / 1e3, 1e-9);
  // The task queue halves the main thread's share (even split assumed), so the step shrinks.
  o.task_queue = true;
  auto q = SimulateIteration(Synthetic(20, 0), t, o, Fixed(1));
  ASSERT_TRUE(q.ok());
  EXPECT_LT(q->iteration_ms, r->iteration_ms);
  // Long kernels hide the dispatch completely except for the first op.
  auto longk = SimulateIteration(Synthetic(20, 0), t, o, Fixed(10 * dispatch_us));
  ASSERT_TRUE(longk.ok());
  EXPECT_NEAR(longk->breakdown.dispatch_ms, dispatch_us * 0.5 / 1e3, 1e-9);
}

TEST(IterationTest, JitCompileCostsOncePerDistinctKernelOnTheFirstStep) {
  const auto& t = Ascend910();
  ASSERT_TRUE(t.host.jit_compile_per_op.has_value());
  IterationOptions o;
  o.mode = ExecMode::kEager;
  o.jit_compile = true;
  Lowering l = Synthetic(6, 0);
  l.kernels[5] = l.kernels[1];  // a repeat: compiled once
  auto r = SimulateIteration(l, t, o, Fixed(5));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->distinct_kernels, 5);
  EXPECT_NEAR(r->first_run_compile_ms, 5 * t.host.jit_compile_per_op->value * 1e3, 1e-9);
  o.jit_compile = false;
  EXPECT_EQ(SimulateIteration(l, t, o, Fixed(5))->first_run_compile_ms, 0);
}

TEST(IterationTest, PrefetchHidesTheInputCopyBehindTheStep) {
  const auto& t = Ascend910();
  const int64_t bytes = 64 << 20;
  const double copy_ms = static_cast<double>(bytes) / t.host.h2d_bandwidth->value * 1e3;
  IterationOptions o;
  o.prefetch = false;
  auto serial = SimulateIteration(Synthetic(10, bytes), t, o, Fixed(1000));
  ASSERT_TRUE(serial.ok());
  EXPECT_NEAR(serial->breakdown.h2d_ms, copy_ms, 1e-9);
  o.prefetch = true;
  auto hidden = SimulateIteration(Synthetic(10, bytes), t, o, Fixed(1000));  // 10 ms step > copy
  ASSERT_TRUE(hidden.ok());
  EXPECT_EQ(hidden->breakdown.h2d_ms, 0);
  EXPECT_NEAR(hidden->h2d_total_ms, copy_ms, 1e-9);
  auto exposed = SimulateIteration(Synthetic(2, bytes), t, o, Fixed(1));  // tiny step
  ASSERT_TRUE(exposed.ok());
  EXPECT_GT(exposed->breakdown.h2d_ms, 0);
  EXPECT_LT(exposed->breakdown.h2d_ms, copy_ms);
}

TEST(IterationTest, DataParallelAllReduceGoesThroughTheCommModel) {
  auto cluster = comm::LoadCluster("atlas800-910", comm::FindClustersDir());
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  IterationOptions o;
  o.cluster = &*cluster;
  o.ranks = 8;
  auto r = SimulateIteration(Synthetic(10, 0, 100 << 20), Ascend910(), o, Fixed(100));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->comm_total_ms, 0);
  EXPECT_GE(r->breakdown.comm_ms, 0);
  EXPECT_FALSE(r->comm_algo.empty());
  const auto& b = r->breakdown;
  EXPECT_NEAR(
      r->iteration_ms,
      b.cube_ms + b.vector_ms + b.transdata_cast_ms + b.aicpu_ms + b.dispatch_ms + b.h2d_ms + b.comm_ms,
      1e-9);
  o.ranks = 1;
  EXPECT_EQ(SimulateIteration(Synthetic(10, 0, 100 << 20), Ascend910(), o, Fixed(100))->comm_total_ms, 0);
}

TEST(IterationTest, UnknownKernelsAreListedAndModesParsed) {
  auto unknown = [](const Kernel& k, const target::Target&) {
    KernelCost c;
    c.known = k.op_type != "Add";
    c.time_us = c.known ? 3 : 0;
    return c;
  };
  auto r = SimulateIteration(Synthetic(4, 0), Ascend910(), {}, unknown);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unknown_op_types, (std::vector<std::string>{"Add"}));
  EXPECT_EQ(TopKernels(*r, 1).front().op_type, "MatMul");
  auto bad = ParseExecMode("sink");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("graph, eager"), std::string::npos);
}

}  // namespace
}  // namespace npugap::analysis::perf
