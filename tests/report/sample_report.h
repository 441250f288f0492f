// A hand-made report for the renderer tests: one section per verdict, charts of both kinds,
// text that needs escaping.
#pragma once

#include "npugap/report/report.h"

namespace npugap::report::testing {

inline Report SampleReport() {
  Report r;
  r.tool_version = "test";
  r.model = {"models/<odd>&name.onnx", 5, 1234, 5678, 13};
  r.config.target = "ascend910b2";
  r.config.dev_target = "cpu-dev";
  r.config.batch = 64;
  r.compat.key = "compat";
  r.compat.title = "Compatibility";
  r.compat.verdict = Verdict::kWarning;
  r.compat.metrics = {{"aicpu_nodes", "AI CPU fallbacks", 1, "", "1"}};
  r.compat.cause = "NonZero falls back to AI CPU";
  r.compat.fix = "replace NonZero";
  r.compat.details = {"aicpu NonZero_3 (NonZero): data-dependent output"};
  Chart bars{"chart-compat-placement",
             "Where the ops run",
             ChartKind::kBar,
             "placement",
             "nodes",
             {"AI Core", "AI CPU"},
             {{"nodes", {0, 1}, {4, 1}}},
             {},
             {},
             false};
  r.compat.charts.push_back(bars);
  r.precision.key = "precision";
  r.precision.title = "Precision";
  r.precision.not_available = "the precision analysis has not landed";
  r.memory.key = "memory";
  r.memory.title = "Memory";
  r.memory.verdict = Verdict::kFail;
  r.memory.metrics = {{"needed_bytes", "training at batch 64", 3.5e10, "bytes", "32.60 GiB"},
                      {"available_bytes", "available on the device", 3.0e10, "bytes", "27.94 GiB"},
                      {"max_batch", "largest batch that fits", 48, "", "48"}};
  r.memory.cause = "training needs 32.60 GiB but 27.94 GiB are available";
  r.memory.fix = "use batch 48 (the largest that fits)";
  Chart line{"chart-memory-timeline",
             "Memory <over> time",
             ChartKind::kLine,
             "node",
             "GiB",
             {},
             {{"held", {0, 1, 2, 3}, {1, 3, 2, 0.5}}},
             {},
             {{"available 27.94 GiB", 2.5}},
             false};
  r.memory.charts.push_back(line);
  r.perf.key = "perf";
  r.perf.title = "Performance";
  r.perf.not_available = "the performance analysis has not landed";
  r.comm.key = "comm";
  r.comm.title = "Communication";
  r.comm.verdict = Verdict::kOk;
  r.comm.metrics = {{"allreduce_ms", "gradient all-reduce at 16 ranks", 12.5, "ms", "12.5 ms"}};
  r.comm.notes = {"scaling efficiency needs the perf analysis"};
  Chart ranks{"chart-comm-allreduce",
              "All-reduce",
              ChartKind::kLine,
              "ranks",
              "ms",
              {},
              {{"all-reduce", {8, 16}, {10, 12.5}}},
              {},
              {},
              true};
  r.comm.charts.push_back(ranks);
  r.recommendations = {{SettingKind::kAtcFlag, "--soc_version", "Ascend910B2", "compat"},
                       {SettingKind::kEnv, "HCCL_BUFFSIZE", "200", "comm"},
                       {SettingKind::kBatch, "batch", "48", "memory"}};
  return r;
}

}  // namespace npugap::report::testing
