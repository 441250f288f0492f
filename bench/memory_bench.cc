// `npugap memory`'s analysis on a 5,000-node graph built in memory (issue 4 item 6: < 1 s),
// without the ONNX import: the inference plan, the training breakdown, both largest-batch
// searches and a three-iteration allocator replay, as the command runs them.
//
//   ninja -C build npugap_memory_bench && build/npugap_memory_bench
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "npugap/analysis/memory/inference.h"
#include "npugap/analysis/memory/max_batch.h"
#include "npugap/analysis/memory/planner.h"
#include "npugap/analysis/memory/replay.h"
#include "npugap/analysis/memory/training.h"
#include "resnet_chain.h"

namespace {

namespace mem = npugap::analysis::memory;
namespace ir = npugap::ir;

// ResNet-style blocks of Conv 1x1 -> BatchNormalization -> Relu -> Add(skip), 4 nodes each.
ir::Model Chain(int64_t batch) {
  return npugap::bench::ResNetChain({5000, {batch, 64, 56, 56}, 1, /*relu_before_add=*/true});
}

void BM_MemoryCommand5000Nodes(benchmark::State& state) {
  const int64_t batch = 8;
  const ir::Model m = Chain(batch), m2 = Chain(batch * 2);
  auto target = npugap::target::LoadTarget("ascend910b2");
  if (!target.ok()) {
    state.SkipWithError(target.status().message().c_str());
    return;
  }
  const int64_t available = target->memory.device.value - target->memory.reserve.value;
  const mem::TrainingOptions train{mem::Optimizer::kAdam, mem::Amp::kNone, 1};
  for (auto _ : state) {
    auto s1 = mem::StaticShapes(m.graph);
    auto s2 = mem::StaticShapes(m2.graph);
    auto scaling = mem::BatchScaling::Derive(*s1, batch, *s2, batch * 2);
    auto inference = mem::PlanInference(m.graph, *s1, *target);
    auto training = mem::PlanTraining(m.graph, *s1, *target, train);
    auto max_inf = mem::LargestFittingBatch(
        [&](int64_t b) -> npugap::Expected<bool> {
          NPUGAP_ASSIGN_OR_RETURN(auto s, scaling->At(b));
          NPUGAP_ASSIGN_OR_RETURN(auto r, mem::PlanInference(m.graph, s, *target));
          return r.total_bytes <= available;
        },
        1 << 20);
    auto max_train = mem::LargestFittingBatch(
        [&](int64_t b) -> npugap::Expected<bool> {
          NPUGAP_ASSIGN_OR_RETURN(auto s, scaling->At(b));
          NPUGAP_ASSIGN_OR_RETURN(auto r, mem::PlanTraining(m.graph, s, *target, train));
          return r.total_bytes <= available;
        },
        1 << 20);
    mem::ReplayOptions replay;
    replay.batches = {batch, batch, batch};
    replay.training = true;
    replay.limit = available;
    auto runs = mem::ReplayAllocators(
        m.graph, [&](int64_t b) { return scaling->At(b); }, replay);
    if (!inference.ok() || !training.ok() || !max_inf.ok() || !max_train.ok() || !runs.ok()) {
      state.SkipWithError("analysis failed");
      return;
    }
    benchmark::DoNotOptimize(inference->total_bytes + training->total_bytes + *max_inf + *max_train);
    state.counters["max_batch"] = static_cast<double>(*max_inf);
    state.counters["train_max_batch"] = static_cast<double>(*max_train);
  }
  state.counters["nodes"] = static_cast<double>(m.graph.nodes.size());
}
BENCHMARK(BM_MemoryCommand5000Nodes)->Unit(benchmark::kMillisecond);

void BM_GreedyPlan5000Nodes(benchmark::State& state) {
  const ir::Model m = Chain(8);
  auto target = npugap::target::LoadTarget("ascend910b2");
  auto shapes = mem::StaticShapes(m.graph);
  for (auto _ : state) benchmark::DoNotOptimize(mem::PlanInference(m.graph, *shapes, *target)->total_bytes);
}
BENCHMARK(BM_GreedyPlan5000Nodes)->Unit(benchmark::kMillisecond);

// The planner alone where its refinement rounds run (plain best fit ends above the lower bound):
// 360 ConvNeXt blocks as PlannerTest.RefinementClosesTheResidualStreamGap builds them, 5,040
// buffers, one per node of a 5,000-node graph.
std::vector<mem::TensorUse> ConvNextBlocks(int blocks) {
  std::vector<mem::TensorUse> uses;
  for (int b = 0; b < blocks; ++b) {
    const int t = 18 * b;
    const auto add = [&](int64_t units, int first, int last) {
      uses.push_back({static_cast<int>(uses.size()), units << 20, t + first, t + last});
    };
    add(4, 0, 18);
    add(4, 2, 3), add(4, 3, 4);
    add(16, 4, 5), add(16, 5, 11), add(16, 7, 8), add(16, 8, 10), add(16, 10, 11), add(16, 11, 13),
        add(16, 13, 14);
    add(4, 14, 15), add(4, 15, 16), add(4, 16, 17), add(4, 17, 18);
  }
  return uses;
}

void BM_RefinedPlanConvNext5040Buffers(benchmark::State& state) {
  const std::vector<mem::TensorUse> uses = ConvNextBlocks(360);
  const mem::GreedyBySizePlanner planner(static_cast<int>(state.range(0)));
  int64_t peak = 0;
  for (auto _ : state) {
    peak = planner.Assign(uses).peak_bytes;
    benchmark::DoNotOptimize(peak);
  }
  state.counters["plan_over_lower_bound"] =
      static_cast<double>(peak) / static_cast<double>(mem::LowerBound(uses));
}
// 0 rounds: best fit under the four orders only; 16: the default.
BENCHMARK(BM_RefinedPlanConvNext5040Buffers)
    ->Arg(0)
    ->Arg(mem::GreedyBySizePlanner::kDefaultRefineRounds)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
