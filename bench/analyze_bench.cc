// Speed of `npugap analyze` (issue 7, item 4): resnet50 at batch 8 on the Ascend 910B2 with 8
// precision samples (one batch: one reference and one emulated run, compared tensor by tensor) and
// every other section, at 2 threads; target <= 5 s wall on 2 cores. The whole report as the CLI
// builds it (BuildReport), plus the precision section alone and the report without it, so that
// the time splits. Peak RSS of the process is reported as a counter (ru_maxrss).
//
//   ninja -C build npugap_analyze_bench && build/npugap_analyze_bench
//
// The model comes from NPUGAP_RESNET50 (default /work/models/resnet50_op17.onnx, written by
// scripts/gen_models.py); the benchmark is skipped when it is missing.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "npugap/onnx/import.h"
#include "npugap/report/build.h"
#include "npugap/target/target.h"

namespace {

using namespace npugap;

struct Setup {
  std::string path;
  std::optional<ir::Model> model;
  std::optional<target::Target> target, dev;
  std::string error;
};

const Setup& Get() {
  static const std::unique_ptr<Setup> s = [] {
    auto s = std::make_unique<Setup>();
    const char* env = std::getenv("NPUGAP_RESNET50");
    s->path = env ? env : "/work/models/resnet50_op17.onnx";
    if (!std::filesystem::exists(s->path)) {
      s->error = s->path + " not found";
      return s;
    }
    onnx_import::ImportOptions io;
    io.batch = 8;
    auto m = onnx_import::LoadModel(s->path, io);
    auto t = target::LoadTarget("ascend910b2");
    auto d = target::LoadTarget("cpu-dev");
    if (!m.ok() || !t.ok() || !d.ok()) {
      s->error = "cannot load the model or the targets";
      return s;
    }
    s->model = std::move(*m);
    s->target = std::move(*t);
    s->dev = std::move(*d);
    return s;
  }();
  return *s;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

// skip: sections not to run ("" for the whole report, as `npugap analyze` without --skip).
void RunReport(benchmark::State& state, std::vector<std::string> skip) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    state.SkipWithError(s.error.c_str());
    return;
  }
  report::AnalyzeOptions o;
  o.batch = 8;
  o.samples = 8;
  o.threads = 2;
  o.dev_target = &*s.dev;
  o.skip = std::move(skip);
  const std::string path = s.path;
  o.load_at_batch = [path](int64_t batch) {
    onnx_import::ImportOptions io;
    io.batch = batch;
    return onnx_import::LoadModel(path, io);
  };
  for (auto _ : state) {
    auto r = report::BuildReport(*s.model, *s.target, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(r);
  }
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}

void BM_AnalyzeResnet50Batch8Samples8(benchmark::State& state) { RunReport(state, {}); }
void BM_AnalyzeResnet50PrecisionOnly(benchmark::State& state) {
  RunReport(state, {"compat", "memory", "perf", "comm"});
}
void BM_AnalyzeResnet50WithoutPrecision(benchmark::State& state) { RunReport(state, {"precision"}); }

// Real time: the runs use 2 threads (and the metrics a worker), so CPU time of the main thread
// would undercount. The whole report runs first, so its peak RSS is its own.
BENCHMARK(BM_AnalyzeResnet50Batch8Samples8)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_AnalyzeResnet50PrecisionOnly)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_AnalyzeResnet50WithoutPrecision)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
