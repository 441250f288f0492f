// `npugap perf MODEL`'s analysis on a 5,000-node graph built in memory (issue 5 item 6: < 1 s),
// without the ONNX import: the lowering (fusion, dtypes, AI CPU placement, layouts, kernels) and
// the iteration model with the per-kernel cost model, for inference and for a training step.
//
//   ninja -C build npugap_perf_lower_bench && build/npugap_perf_lower_bench
#include <benchmark/benchmark.h>

#include <string>

#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/lower.h"

namespace {

namespace perf = npugap::analysis::perf;
namespace ir = npugap::ir;

constexpr int kNodes = 5000;
constexpr int64_t kChannels = 64;
constexpr int64_t kSide = 28;

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

// ResNet-style blocks Conv 3x3 -> BatchNormalization -> Add(skip) -> Relu, 4 nodes each.
ir::Model Chain() {
  ir::Model m;
  m.opsets[""] = 13;
  ir::Graph& g = m.graph;
  const ir::Shape act = {32, kChannels, kSide, kSide};
  int x = AddValue(g, "input", act);
  g.values[static_cast<size_t>(x)].is_graph_input = true;
  g.inputs.push_back(x);
  auto node = [&](const std::string& op, std::vector<int> inputs, int out) {
    ir::Node n;
    n.name = op + std::to_string(g.nodes.size());
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {out};
    if (op == "Conv") {
      ir::Attribute pads;
      pads.kind = ir::Attribute::Kind::kInts;
      pads.ints = {1, 1, 1, 1};
      n.attributes["pads"] = pads;
    }
    g.nodes.push_back(std::move(n));
  };
  for (int i = 0; g.nodes.size() < static_cast<size_t>(kNodes); ++i) {
    const std::string p = std::to_string(i);
    const int w = AddWeight(g, "w" + p, {kChannels, kChannels, 3, 3});
    const int c = AddValue(g, "conv" + p, act);
    node("Conv", {x, w}, c);
    std::vector<int> bn_in = {c};
    for (const char* s : {"_scale", "_bias", "_mean", "_var"})
      bn_in.push_back(AddWeight(g, "bn" + p + s, {kChannels}));
    const int b = AddValue(g, "bn" + p, act);
    node("BatchNormalization", bn_in, b);
    const int a = AddValue(g, "add" + p, act);
    node("Add", {b, x}, a);
    const int r = AddValue(g, "relu" + p, act);
    node("Relu", {a}, r);
    x = r;
  }
  g.values[static_cast<size_t>(x)].is_graph_output = true;
  g.outputs.push_back(x);
  g.RebuildLinks();
  return m;
}

const npugap::target::Target& Ascend910() {
  static const npugap::target::Target t = *npugap::target::LoadTarget("ascend910");
  return t;
}

void Run(benchmark::State& state, bool train, perf::ExecMode mode) {
  const ir::Model m = Chain();
  perf::LowerOptions lo;
  lo.train = train;
  lo.eager = mode == perf::ExecMode::kEager;
  lo.precision_mode = "allow_mix_precision";
  perf::IterationOptions io;
  io.mode = mode;
  size_t kernels = 0;
  double ms = 0;
  for (auto _ : state) {
    auto l = perf::Lower(m, Ascend910(), lo);
    if (!l.ok()) {
      state.SkipWithError(l.status().message().c_str());
      return;
    }
    auto r = perf::SimulateIteration(*l, Ascend910(), io, &perf::PredictKernel);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    kernels = l->kernels.size();
    ms = r->iteration_ms;
    benchmark::DoNotOptimize(ms);
  }
  state.counters["nodes"] = static_cast<double>(m.graph.nodes.size());
  state.counters["kernels"] = static_cast<double>(kernels);
}

void BM_PerfInferenceGraph(benchmark::State& s) { Run(s, false, perf::ExecMode::kGraph); }
void BM_PerfTrainingGraph(benchmark::State& s) { Run(s, true, perf::ExecMode::kGraph); }
void BM_PerfTrainingEager(benchmark::State& s) { Run(s, true, perf::ExecMode::kEager); }
BENCHMARK(BM_PerfInferenceGraph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PerfTrainingGraph)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PerfTrainingEager)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
