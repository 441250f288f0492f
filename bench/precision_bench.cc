// Speed of emulated execution (issue 3, item 7): resnet50 batch 8 under 910B force_fp16 against
// npugap's own FP32 run of the same model, in the same process, runs interleaved so that load on
// a shared machine hits both alike. Target: emulated <= 1.3x FP32 (aim 1.1x).
//
//   ninja -C build npugap_precision_bench && build/npugap_precision_bench [--benchmark_filter=...]
//
// The model comes from NPUGAP_RESNET50 (default /work/models/resnet50_op17.onnx, written by
// scripts/gen_models.py); the benchmark is skipped when it is missing.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "npugap/analysis/precision/emulate.h"
#include "npugap/exec/executor.h"
#include "npugap/exec/parallel.h"
#include "npugap/exec/random_inputs.h"
#include "npugap/numerics/format.h"
#include "npugap/onnx/import.h"
#include "npugap/target/target.h"

namespace {

using namespace npugap;

struct Setup {
  ir::Model model;
  std::vector<ir::Tensor> inputs;
  std::optional<exec::Executor> fp32;
  std::optional<analysis::precision::EmulatedRunner> fp16;
  std::string error;
};

const Setup& Get() {
  static const std::unique_ptr<Setup> s = [] {
    auto s = std::make_unique<Setup>();
    const char* env = std::getenv("NPUGAP_RESNET50");
    const std::string path = env ? env : "/work/models/resnet50_op17.onnx";
    if (!std::filesystem::exists(path)) {
      s->error = path + " not found";
      return s;
    }
    onnx_import::ImportOptions io;
    io.batch = 8;
    auto m = onnx_import::LoadModel(path, io);
    if (!m.ok()) {
      s->error = m.status().message();
      return s;
    }
    s->model = std::move(m).value();
    s->inputs = exec::RandomInputs(s->model.graph, 0).value();
    const int threads = exec::DefaultNumThreads();
    s->fp32.emplace(exec::Executor::Create(s->model, {threads, true}).value());
    auto target = target::LoadTarget("ascend910b2").value();
    analysis::precision::PrecisionOptions o;
    o.mode = "force_fp16";
    auto plan = analysis::precision::BuildPrecisionPlan(s->model, target, o).value();
    s->fp16.emplace(
        analysis::precision::EmulatedRunner::Create(s->model, std::move(plan), {threads, true}).value());
    return s;
  }();
  return *s;
}

double Ms(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The set-up, warmed up (primitive creation and weight packing happen on the first run of each),
// or null after telling the benchmark why it is skipped.
const Setup* Prepared(benchmark::State& state) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return nullptr;
  }
  (void)s.fp32->Run(s.inputs);
  (void)s.fp16->Run(s.inputs);
  return &s;
}

// Wall milliseconds of one run; its result is kept alive until timed.
template <typename Run>
double TimedMs(const Run& run) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = run();
  const auto t1 = std::chrono::steady_clock::now();
  benchmark::DoNotOptimize(result);
  return Ms(t0, t1);
}

// Each iteration runs FP32 then emulated force_fp16; counters give both times and their ratio.
void BM_Resnet50Batch8Fp32VsForceFp16(benchmark::State& state) {
  const Setup* s = Prepared(state);
  if (s == nullptr) return;
  double fp32_ms = 0, fp16_ms = 0;
  for (auto _ : state) {
    fp32_ms += TimedMs([&] { return s->fp32->Run(s->inputs); });
    fp16_ms += TimedMs([&] { return s->fp16->Run(s->inputs); });
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["fp32_ms"] = fp32_ms / n;
  state.counters["force_fp16_ms"] = fp16_ms / n;
  state.counters["ratio"] = fp16_ms / fp32_ms;
}
BENCHMARK(BM_Resnet50Batch8Fp32VsForceFp16)->Unit(benchmark::kMillisecond)->Iterations(5);

// The rounding kernels' share (numerics bench): each iteration runs FP32, then force_fp16 with the
// AVX-512 rounding kernels, then force_fp16 with the AVX2 ones, on the same inputs.
void BM_Resnet50Batch8RoundingPaths(benchmark::State& state) {
  if (!numerics::KernelPathAvailable(numerics::KernelPath::kAvx512)) {
    state.SkipWithError("no AVX-512 on this CPU");
    return;
  }
  const Setup* s = Prepared(state);
  if (s == nullptr) return;
  double fp32_ms = 0, avx512_ms = 0, avx2_ms = 0;
  for (auto _ : state) {
    fp32_ms += TimedMs([&] { return s->fp32->Run(s->inputs); });
    numerics::SetAutoKernelPath(numerics::KernelPath::kAvx512);
    avx512_ms += TimedMs([&] { return s->fp16->Run(s->inputs); });
    numerics::SetAutoKernelPath(numerics::KernelPath::kAvx2);
    avx2_ms += TimedMs([&] { return s->fp16->Run(s->inputs); });
    numerics::SetAutoKernelPath(numerics::KernelPath::kAuto);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["fp32_ms"] = fp32_ms / n;
  state.counters["fp16_avx512_ms"] = avx512_ms / n;
  state.counters["fp16_avx2_ms"] = avx2_ms / n;
  state.counters["ratio_avx512"] = avx512_ms / fp32_ms;
  state.counters["ratio_avx2"] = avx2_ms / fp32_ms;
}
BENCHMARK(BM_Resnet50Batch8RoundingPaths)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
