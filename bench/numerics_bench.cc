// Rounding throughput of the number formats (issue 3 item 7): RoundArray on its AVX-512 and AVX2
// paths against the scalar reference RoundArrayScalar, round-to-nearest-even, IEEE overflow, one
// thread, on 64 MiB float32 arrays (16 Mi elements) rounded in place, and EncodeArray16 (64 MiB of
// float32 in, 32 MiB of 16-bit patterns out). Items per second = elements per second.
// Aim: >= 3e9 elements/s for fp16 / bf16 on one core.
//
// The Roofline/* rows are what the memory system allows for the same traffic in the same run: an
// in-place pass that loads and stores every element and does nothing else, a read-only pass, a
// memcpy, and a float32 -> 16-bit conversion with non-temporal stores (the encode's traffic).
//
//   ninja -C build npugap_numerics_bench && build/npugap_numerics_bench
//   build/npugap_numerics_bench --benchmark_filter='/fp16' --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <time.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "npugap/numerics/format.h"

namespace {

namespace num = npugap::numerics;

constexpr int64_t kElements = (int64_t{64} << 20) / sizeof(float);
// 256 KiB: resident in L2, so the run measures the arithmetic rather than the memory system.
constexpr int64_t kCacheElements = (int64_t{256} << 10) / sizeof(float);

// 64-byte aligned, as the emulator's tensors are: every vector access stays within a cache line.
template <typename T>
struct Buffer {
  explicit Buffer(size_t count)
      : n(count),
        data(static_cast<T*>(std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64)), &std::free) {}
  std::span<T> span() { return {data.get(), n}; }
  size_t n;
  std::unique_ptr<T, decltype(&std::free)> data;
};

// A typical activation tensor: normally distributed, mean 0, standard deviation 1, in range for
// every format. Overflow and underflow are rare here, as in real tensors; the kernels handle
// groups holding them on a slower path (FormatArrayTest covers that path's results).
Buffer<float> Inputs(size_t n) {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Buffer<float> v(n);
  for (float& x : v.span()) x = normal(rng);
  return v;
}

void SetCounts(benchmark::State& state, size_t n, size_t bytes_per_element) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(n * bytes_per_element));
}

// path: kAvx2 / kAvx512, or kAuto standing for the scalar reference.
void BM_Round(benchmark::State& state, num::Format f, num::Rounding rounding, num::KernelPath path) {
  Buffer<float> v = Inputs(static_cast<size_t>(state.range(0)));
  const num::RoundingOptions opt{rounding, num::Overflow::kIeee, num::Subnormals::kKeep, 1};
  for (auto _ : state) {
    // Rounding is idempotent, so later iterations see rounded values: the same work for the
    // branch-free kernels.
    const num::RoundStats s = path == num::KernelPath::kAuto ? num::RoundArrayScalar(f, v.span(), opt)
                                                             : num::RoundArray(f, v.span(), opt, 0, path);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  SetCounts(state, v.n, 8);
}

void BM_Encode16(benchmark::State& state, num::Format f, num::KernelPath path) {
  Buffer<float> in = Inputs(static_cast<size_t>(state.range(0)));
  Buffer<uint16_t> out(in.n);
  const num::RoundingOptions opt{};
  for (auto _ : state) {
    num::EncodeArray16(f, in.span(), out.span(), opt, path);
    benchmark::ClobberMemory();
  }
  SetCounts(state, in.n, 6);
}

// ---- rooflines ----------------------------------------------------------------------------------
// The compiler's own loop over the array (x + 0.0f cannot be folded away: -0 + 0 is +0); the
// benchmark is built for the baseline x86-64, so this is what plain SSE code reaches.
void BM_InPlaceCompiled(benchmark::State& state) {
  Buffer<float> v = Inputs(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    for (float& x : v.span()) x += 0.0f;
    benchmark::ClobberMemory();
  }
  SetCounts(state, v.n, 8);
}

// Load and store every 64-byte line with the software prefetch the AVX-512 kernel uses (1,024
// elements ahead): the least an in-place kernel can cost on this machine.
__attribute__((target("avx512f"))) void InPlacePassAvx512(float* p, size_t n) {
  const __m512 zero = _mm512_setzero_ps();
  for (size_t i = 0; i < n; i += 16) {
    _mm_prefetch(reinterpret_cast<const char*>(p + i + 1024), _MM_HINT_T0);
    _mm512_store_ps(p + i, _mm512_add_ps(_mm512_load_ps(p + i), zero));
  }
}

void BM_InPlaceAvx512(benchmark::State& state) {
  Buffer<float> v = Inputs(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    InPlacePassAvx512(v.data.get(), v.n);
    benchmark::ClobberMemory();
  }
  SetCounts(state, v.n, 8);
}

__attribute__((target("avx512f"))) void BM_ReadOnly(benchmark::State& state) {
  Buffer<float> v = Inputs(static_cast<size_t>(state.range(0)));
  const float* p = v.data.get();
  for (auto _ : state) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;  // four chains: not latency bound
    for (size_t i = 0; i < v.n; i += 64) {
      s0 = _mm512_add_ps(s0, _mm512_load_ps(p + i));
      s1 = _mm512_add_ps(s1, _mm512_load_ps(p + i + 16));
      s2 = _mm512_add_ps(s2, _mm512_load_ps(p + i + 32));
      s3 = _mm512_add_ps(s3, _mm512_load_ps(p + i + 48));
    }
    benchmark::DoNotOptimize(
        _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3))));
  }
  SetCounts(state, v.n, 4);
}

void BM_Memcpy(benchmark::State& state) {
  Buffer<float> in = Inputs(static_cast<size_t>(state.range(0)));
  Buffer<float> out(in.n);
  for (auto _ : state) {
    std::memcpy(out.data.get(), in.data.get(), in.n * sizeof(float));
    benchmark::ClobberMemory();
  }
  SetCounts(state, in.n, 8);
}

// float32 -> fp16 with vcvtps2ph and non-temporal stores: the encode's traffic (4 B read, 2 B
// written, no read for ownership), with the conversion that EncodeArray16's fp16 path also uses.
__attribute__((target("avx512f"))) void NarrowStreamFp16(const float* p, uint16_t* o, size_t n) {
  for (size_t i = 0; i < n; i += 32) {
    const __m256i lo = _mm512_cvtps_ph(_mm512_load_ps(p + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i hi =
        _mm512_cvtps_ph(_mm512_load_ps(p + i + 16), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(o + i),
                        _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1));
  }
  _mm_sfence();
}

void BM_NarrowStream(benchmark::State& state) {
  Buffer<float> in = Inputs(static_cast<size_t>(state.range(0)));
  Buffer<uint16_t> out(in.n);
  for (auto _ : state) {
    NarrowStreamFp16(in.data.get(), out.data.get(), in.n);
    benchmark::ClobberMemory();
  }
  SetCounts(state, in.n, 6);
}

// CPU time of this thread: on a shared machine a preempted pass does not count the time it waited,
// so the rates are per CPU second, as Google Benchmark's own items_per_second.
double ThreadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Kernel and roofline in the same iteration, one right after the other on the same array, so that
// the load of a shared machine hits both alike: counters give both rates (10^9 elements/s) and
// kernel / roofline. In place: RoundArray against InPlacePassAvx512; encode: EncodeArray16
// against NarrowStreamFp16.
void BM_Paired(benchmark::State& state, num::Format f, num::KernelPath path, bool encode) {
  Buffer<float> v = Inputs(static_cast<size_t>(state.range(0)));
  Buffer<uint16_t> out(v.n);
  double kernel_s = 0, roofline_s = 0;
  for (auto _ : state) {
    const double t0 = ThreadSeconds();
    if (encode)
      NarrowStreamFp16(v.data.get(), out.data.get(), v.n);
    else
      InPlacePassAvx512(v.data.get(), v.n);
    benchmark::ClobberMemory();
    const double t1 = ThreadSeconds();
    if (encode)
      num::EncodeArray16(f, v.span(), out.span(), {}, path);
    else
      benchmark::DoNotOptimize(num::RoundArray(f, v.span(), {}, 0, path));
    benchmark::ClobberMemory();
    const double t2 = ThreadSeconds();
    roofline_s += t1 - t0;
    kernel_s += t2 - t1;
  }
  const double elements = static_cast<double>(state.iterations()) * static_cast<double>(v.n);
  state.counters["kernel_e9"] = elements / kernel_s / 1e9;
  state.counters["roofline_e9"] = elements / roofline_s / 1e9;
  state.counters["kernel_per_roofline"] = roofline_s / kernel_s;
}

const char* PathName(num::KernelPath p) {
  return p == num::KernelPath::kAvx512 ? "avx512" : p == num::KernelPath::kAvx2 ? "avx2" : "scalar";
}

void Register() {
  const bool avx512 = num::KernelPathAvailable(num::KernelPath::kAvx512);
  auto both_sizes = [](benchmark::internal::Benchmark* b) {
    b->Arg(kElements)->Arg(kCacheElements)->Unit(benchmark::kMicrosecond);
  };
  both_sizes(benchmark::RegisterBenchmark("Roofline/InPlaceCompiled", BM_InPlaceCompiled));
  benchmark::RegisterBenchmark("Roofline/Memcpy", BM_Memcpy)->Arg(kElements)->Unit(benchmark::kMicrosecond);
  if (avx512) {
    both_sizes(benchmark::RegisterBenchmark("Roofline/InPlaceAvx512", BM_InPlaceAvx512));
    benchmark::RegisterBenchmark("Roofline/ReadOnly", BM_ReadOnly)
        ->Arg(kElements)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark("Roofline/NarrowStream", BM_NarrowStream)
        ->Arg(kElements)
        ->Unit(benchmark::kMicrosecond);
  }
  std::vector<num::KernelPath> paths = {num::KernelPath::kAvx2};
  if (avx512) paths.insert(paths.begin(), num::KernelPath::kAvx512);
  for (num::Format f : {num::Format::kFP16, num::Format::kBF16, num::Format::kFP8E4M3, num::Format::kFP8E5M2,
                        num::Format::kHiF8, num::Format::kHF32}) {
    const std::string name(num::Info(f).name);
    for (num::KernelPath path : paths)
      both_sizes(
          benchmark::RegisterBenchmark(("RoundArray_RNE/" + std::string(PathName(path)) + "/" + name).c_str(),
                                       BM_Round, f, num::Rounding::kNearestEven, path));
    benchmark::RegisterBenchmark(("RoundArray_RNE/scalar/" + name).c_str(), BM_Round, f,
                                 num::Rounding::kNearestEven, num::KernelPath::kAuto)
        ->Arg(kElements)
        ->Unit(benchmark::kMicrosecond);
  }
  // Stochastic rounding adds the counter-based hash per element.
  for (num::Format f : {num::Format::kBF16, num::Format::kHiF8})
    for (num::KernelPath path : paths)
      benchmark::RegisterBenchmark(
          ("RoundArray_SR/" + std::string(PathName(path)) + "/" + std::string(num::Info(f).name)).c_str(),
          BM_Round, f, num::Rounding::kStochastic, path)
          ->Arg(kElements)
          ->Unit(benchmark::kMicrosecond);
  if (avx512)
    for (bool encode : {false, true})
      for (num::Format f : {num::Format::kFP16, num::Format::kBF16})
        for (num::KernelPath path : paths)
          benchmark::RegisterBenchmark(
              (std::string(encode ? "Paired/EncodeArray16_RNE/" : "Paired/RoundArray_RNE/") + PathName(path) +
               "/" + std::string(num::Info(f).name))
                  .c_str(),
              BM_Paired, f, path, encode)
              ->Arg(kElements)
              ->Unit(benchmark::kMillisecond);
  for (num::Format f : {num::Format::kFP16, num::Format::kBF16})
    for (num::KernelPath path : paths)
      benchmark::RegisterBenchmark(
          ("EncodeArray16_RNE/" + std::string(PathName(path)) + "/" + std::string(num::Info(f).name)).c_str(),
          BM_Encode16, f, path)
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
