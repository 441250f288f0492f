// Rounding throughput of the number formats (issue 3 item 7): RoundArray (AVX2) against the scalar
// reference RoundArrayScalar, round-to-nearest-even, IEEE overflow, one thread, on 64 MiB float32
// arrays (16 Mi elements) rounded in place. Items per second = elements per second.
// Aim: >= 3e9 elements/s for fp16 / bf16 on one core.
//
//   ninja -C build npugap_numerics_bench && build/npugap_numerics_bench
//   build/npugap_numerics_bench --benchmark_filter='/fp16' --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "npugap/numerics/format.h"

namespace {

namespace num = npugap::numerics;

constexpr int64_t kElements = (int64_t{64} << 20) / sizeof(float);
// 256 KiB: resident in L2, so the run measures the arithmetic rather than the memory system.
constexpr int64_t kCacheElements = (int64_t{256} << 10) / sizeof(float);

// A typical activation tensor: normally distributed, mean 0, standard deviation 1, in range for
// every format. Overflow and underflow are rare here, as in real tensors; the kernels handle
// vectors holding them on a slower path (FormatArrayTest covers that path's results).
std::vector<float> Inputs(size_t n) {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

template <bool kVector>
void BM_Round(benchmark::State& state, num::Format f, num::Rounding rounding) {
  std::vector<float> v = Inputs(static_cast<size_t>(state.range(0)));
  const num::RoundingOptions opt{rounding, num::Overflow::kIeee, num::Subnormals::kKeep, 1};
  for (auto _ : state) {
    // Rounding is idempotent, so later iterations see rounded values: the same work for the
    // branch-free kernels.
    const num::RoundStats s = kVector ? num::RoundArray(f, v, opt) : num::RoundArrayScalar(f, v, opt);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(v.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(v.size() * 8));
}

void Register() {
  for (num::Format f : {num::Format::kFP16, num::Format::kBF16, num::Format::kFP8E4M3, num::Format::kFP8E5M2,
                        num::Format::kHiF8, num::Format::kHF32}) {
    const std::string name(num::Info(f).name);
    benchmark::RegisterBenchmark(("RoundArray_RNE/vector/" + name).c_str(), BM_Round<true>, f,
                                 num::Rounding::kNearestEven)
        ->Arg(kElements)
        ->Arg(kCacheElements)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("RoundArray_RNE/scalar/" + name).c_str(), BM_Round<false>, f,
                                 num::Rounding::kNearestEven)
        ->Arg(kElements)
        ->Unit(benchmark::kMicrosecond);
  }
  // Stochastic rounding adds the counter-based hash per element.
  for (num::Format f : {num::Format::kBF16, num::Format::kHiF8})
    benchmark::RegisterBenchmark(("RoundArray_SR/vector/" + std::string(num::Info(f).name)).c_str(),
                                 BM_Round<true>, f, num::Rounding::kStochastic)
        ->Arg(kElements)
        ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
