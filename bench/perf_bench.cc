// `npugap perf --kernels` on 40,000 kernel records (issue 5 item 6: < 1 s): parsing the CSV text
// and predicting + aggregating every record, as the command runs them, without the file I/O.
// The records repeat the rows of both calibration workloads when they are present
// (../shared/calibration/ascend910/), else a built-in mix of cube, vector and move kernels.
//
//   ninja -C build npugap_perf_bench && build/npugap_perf_bench
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "npugap/analysis/perf/calibrate/calibration.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

namespace {

namespace perf = npugap::analysis::perf;
constexpr int kRecords = 40000;

std::vector<std::string> Rows() {
  std::vector<std::string> rows;
  for (const char* f : {"resnet50_bs32_train.csv", "bert_seq128_bs32_train.csv"}) {
    std::ifstream in(std::string(NPUGAP_CALIBRATION_DIR) + "/" + f);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (!header && !line.empty()) rows.push_back(line);
      header = false;
    }
  }
  if (rows.empty()) {
    rows = {
        "FusionOp_Conv2D_BNTrainingReduce,30,NC1HWC0:float32:32x4x56x56x16;FracZ:float32:4x16x16x16,"
        "NC1HWC0:float32:32x16x56x56x16;NC1HWC0:float16:1x16x1x1x16;NC1HWC0:float16:1x16x1x1x16,152.380",
        "MatMul,32,FRACTAL_NZ:float32:48x1024x16x16;FRACTAL_NZ:float32:48x48x16x16;ND:float32:768,"
        "FRACTAL_NZ:float32:48x1024x16x16,296.388",
        "TransData,30,FRACTAL_NZ:float16:192x48x16x16,ND:float16:768x3072,19.683",
        "Add,1,ND:float16:;ND:float16:,ND:float16:,1.790",
    };
  }
  return rows;
}

std::string Csv() {
  const auto rows = Rows();
  std::string text = "op_type,block_dim,inputs,outputs,time_us\n";
  for (int i = 0; i < kRecords; ++i) text += rows[static_cast<size_t>(i) % rows.size()] + "\n";
  return text;
}

void BM_KernelsParseAndPredict(benchmark::State& state) {
  const std::string text = Csv();
  auto target = npugap::target::LoadTarget("ascend910");
  if (!target.ok()) {
    state.SkipWithError(target.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto table = perf::ParseKernelCsv(text, "bench.csv");
    if (!table.ok()) {
      state.SkipWithError(table.status().message().c_str());
      return;
    }
    auto report = perf::Calibrate(table->records, *target);
    benchmark::DoNotOptimize(report.predicted_us);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
}
BENCHMARK(BM_KernelsParseAndPredict)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
