// Speed of `npugap check` (issue 4, item 6: under 1 s on a 5,000-node graph). The graph is built
// in memory, so only the analysis is timed: per-node verdicts, value flow, dynamic-shape findings.
//
//   ninja -C build-bench npugap_check_bench && build-bench/npugap_check_bench
//
// The graph repeats a transformer-like block of 10 nodes whose reshape target is computed from
// the activation's shape (Shape -> Gather -> Concat -> Reshape), so every block also has a shape
// chain for the dynamic-shape walk to follow.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "graph_builder.h"
#include "npugap/analysis/compat/compat.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace {

using npugap::bench::AddInitializer;
using npugap::bench::AddNode;
using npugap::bench::AddValue;
using npugap::ir::DType;
using npugap::ir::Graph;
using npugap::ir::Model;
using npugap::ir::Tensor;

constexpr int64_t kRows = 8;
constexpr int64_t kCols = 64;

Model BuildModel(int blocks) {
  Model m;
  m.opsets[""] = 17;
  Graph& g = m.graph;
  int x = AddValue(g, "x", DType::kFloat32, {kRows, kCols});
  npugap::bench::MarkGraphInput(g, x);
  const int w = AddInitializer(g, "w", Tensor::Empty(DType::kFloat32, {kCols, kCols}));
  const int bias = AddInitializer(g, "b", Tensor::Empty(DType::kFloat32, {kCols}));
  const int zero = AddInitializer(g, "zero", Tensor::FromVector<int64_t>({1}, {0}));
  const int cols = AddInitializer(g, "cols", Tensor::FromVector<int64_t>({1}, {kCols}));
  for (int b = 0; b < blocks; ++b) {
    const std::string p = "b" + std::to_string(b) + "_";
    auto act = [&](const std::string& n) { return AddValue(g, p + n, DType::kFloat32, {kRows, kCols}); };
    auto ints = [&](const std::string& n, int64_t len) { return AddValue(g, p + n, DType::kInt64, {len}); };
    const int mm = act("mm"), add = act("add"), relu = act("relu");
    const int shape = ints("shape", 2), n = ints("n", 1), target = ints("target", 2);
    const int reshaped = act("reshaped"), soft = act("soft"), tr = act("tr"), out = act("out");
    AddNode(g, "MatMul", {x, w}, {mm});
    AddNode(g, "Add", {mm, bias}, {add});
    AddNode(g, "Relu", {add}, {relu});
    AddNode(g, "Shape", {relu}, {shape});
    AddNode(g, "Gather", {shape, zero}, {n});
    AddNode(g, "Concat", {n, cols}, {target});
    g.nodes.back().attributes["axis"].i = 0;
    AddNode(g, "Reshape", {relu, target}, {reshaped});
    AddNode(g, "Softmax", {reshaped}, {soft});
    AddNode(g, "Transpose", {soft}, {tr});
    g.nodes.back().attributes["perm"].kind = npugap::ir::Attribute::Kind::kInts;
    g.nodes.back().attributes["perm"].ints = {0, 1};
    AddNode(g, "Mul", {tr, relu}, {out});
    x = out;
  }
  npugap::bench::MarkGraphOutput(g, x);
  g.RebuildLinks();
  return m;
}

void BM_Check(benchmark::State& state) {
  const Model model = BuildModel(static_cast<int>(state.range(0)) / 10);
  auto target = npugap::target::LoadTarget("ascend910b2");
  if (!target.ok()) {
    state.SkipWithError(target.status().message().c_str());
    return;
  }
  size_t findings = 0;
  int64_t aicore = 0;
  for (auto _ : state) {
    auto result = npugap::compat::CheckModel(model, *target);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    findings = result->dynamic.size();
    aicore = result->summary.aicore;
    benchmark::DoNotOptimize(aicore);
  }
  // One foldable shape chain per block, every op on AI Core: the walk did its work.
  state.counters["nodes"] = static_cast<double>(model.graph.nodes.size());
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["aicore"] = static_cast<double>(aicore);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(model.graph.nodes.size()));
}
BENCHMARK(BM_Check)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
