// Speed of the communication simulators: all-reduce of 1 GiB on the shipped Atlas 800T A2 cluster
// at 8 .. 16,384 NPUs, analytical and flow-level (issue 6 aims: flow ≤ 1 s, analytical ≤ 10 ms at
// 16,384 NPUs on one core). Results: docs/benchmarks.md (and docs/fidelity.md, "Speed").
#include <benchmark/benchmark.h>

#include <string>

#include "npugap/comm/simulate.h"

namespace {

using namespace npugap::comm;

const Cluster& A2() {
  static const Cluster c = *LoadCluster("atlas800t-a2", FindClustersDir());
  return c;
}

void AllReduce1GiB(benchmark::State& state, SimKind kind) {
  CollectiveSpec spec;
  spec.bytes = 1024.0 * 1024 * 1024;
  SimOptions o;
  o.kind = kind;
  const int ranks = static_cast<int>(state.range(0));
  CollectiveResult last;
  for (auto _ : state) {
    auto r = SimulateCollective(A2(), ranks, spec, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    last = *r;
    double simulated = last.time_s;  // a copy: DoNotOptimize may treat its argument as clobbered
    benchmark::DoNotOptimize(simulated);
  }
  state.SetLabel("simulated " + std::to_string(last.time_s * 1e3) + " ms, busbw " +
                 std::to_string(last.busbw_gbps) + " GB/s, " + std::to_string(last.transfers) +
                 " transfers, " + std::to_string(last.solves) + " solves");
}

void BM_AllReduce1GiB_Analytical(benchmark::State& s) { AllReduce1GiB(s, SimKind::kAnalytical); }
void BM_AllReduce1GiB_Flow(benchmark::State& s) { AllReduce1GiB(s, SimKind::kFlow); }

BENCHMARK(BM_AllReduce1GiB_Analytical)->RangeMultiplier(2)->Range(8, 16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllReduce1GiB_Flow)
    ->RangeMultiplier(2)
    ->Range(8, 16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
