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

namespace {

namespace mem = npugap::analysis::memory;
namespace ir = npugap::ir;

constexpr int kNodes = 5000;
constexpr int64_t kChannels = 64;
constexpr int64_t kSide = 56;

int AddValue(ir::Graph& g, const std::string& name, ir::Shape shape) {
  ir::Value v;
  v.name = name;
  std::vector<ir::Dim> dims;
  for (int64_t d : shape) dims.push_back(ir::Dim::Static(d));
  v.type = {ir::DType::kFloat32, std::move(dims)};
  return g.AddValue(std::move(v));
}

int AddWeight(ir::Graph& g, const std::string& name, ir::Shape shape) {
  const int id = AddValue(g, name, shape);
  g.values[static_cast<size_t>(id)].is_initializer = true;
  g.initializers.emplace(id, ir::Tensor::Empty(ir::DType::kFloat32, shape));
  return id;
}

// ResNet-style blocks of Conv 1x1 -> BatchNormalization -> Relu -> Add(skip), 4 nodes each.
ir::Model Chain(int64_t batch) {
  ir::Model m;
  ir::Graph& g = m.graph;
  const ir::Shape act = {batch, kChannels, kSide, kSide};
  int x = AddValue(g, "input", act);
  g.values[static_cast<size_t>(x)].is_graph_input = true;
  g.inputs.push_back(x);
  auto node = [&](const std::string& op, std::vector<int> inputs, int out) {
    ir::Node n;
    n.name = op + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
  };
  for (int i = 0; g.nodes.size() < static_cast<size_t>(kNodes); ++i) {
    const std::string p = std::to_string(i);
    const int w = AddWeight(g, "w" + p, {kChannels, kChannels, 1, 1});
    const int c = AddValue(g, "conv" + p, act);
    node("Conv", {x, w}, c);
    std::vector<int> bn_in = {c};
    for (const char* s : {"scale", "bias", "mean", "var"}) bn_in.push_back(AddWeight(g, s + p, {kChannels}));
    const int b = AddValue(g, "bn" + p, act);
    node("BatchNormalization", bn_in, b);
    const int r = AddValue(g, "relu" + p, act);
    node("Relu", {b}, r);
    const int a = AddValue(g, "add" + p, act);
    node("Add", {r, x}, a);
    x = a;
  }
  g.values[static_cast<size_t>(x)].is_graph_output = true;
  g.outputs.push_back(x);
  g.RebuildLinks();
  return m;
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
