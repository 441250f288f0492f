// `npugap perf MODEL`'s analysis on a 5,000-node graph built in memory (issue 5 item 6: < 1 s),
// without the ONNX import: the lowering (fusion, dtypes, AI CPU placement, layouts, kernels) and
// the iteration model with the per-kernel cost model, for inference and for a training step.
//
//   ninja -C build npugap_perf_lower_bench && build/npugap_perf_lower_bench
#include <benchmark/benchmark.h>

#include <string>

#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/lower/lower.h"
#include "resnet_chain.h"

namespace {

namespace perf = npugap::analysis::perf;
namespace ir = npugap::ir;

// ResNet-style blocks Conv 3x3 -> BatchNormalization -> Add(skip) -> Relu, 4 nodes each.
ir::Model Chain() {
  return npugap::bench::ResNetChain({5000, {32, 64, 28, 28}, 3, /*relu_before_add=*/false});
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
