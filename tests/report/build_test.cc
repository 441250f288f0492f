// Analyses -> report: verdict rules of each section, and BuildReport on the seed's SimpleNet,
// every number checked against the analysis called directly.
#include <gtest/gtest.h>

#include <algorithm>

#include "npugap/analysis/compat/compat.h"
#include "npugap/analysis/memory/shapes.h"
#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/lower/lower.h"
#include "npugap/analysis/precision/compare.h"
#include "npugap/analysis/precision/plan.h"
#include "npugap/comm/simulate.h"
#include "npugap/exec/random_inputs.h"
#include "npugap/onnx/export.h"
#include "npugap/report/build.h"

namespace npugap::report {
namespace {

namespace mem = analysis::memory;
namespace perf = analysis::perf;
namespace pr = analysis::precision;

const Metric* FindMetric(const Section& s, const std::string& key) {
  for (const Metric& m : s.metrics)
    if (m.key == key) return &m;
  return nullptr;
}

compat::CheckResult CleanCheck() {
  compat::CheckResult r;
  r.target = "ascend910b2";
  r.soc_version = "Ascend910B2";
  r.precision_mode_v2 = "fp16";
  r.nodes = {{"conv", "", "Conv", "", compat::Verdict::kAiCore, compat::AtcError::kNone, "", ""}};
  r.summary.aicore = 1;
  r.deployable = r.clean = true;
  return r;
}

TEST(CompatSection, VerdictFollowsDeployableAndClean) {
  std::vector<Setting> settings;
  auto r = CleanCheck();
  Section s = CompatSection(r, "atc --model=m.onnx", &settings);
  EXPECT_EQ(s.verdict, Verdict::kOk);
  EXPECT_TRUE(s.cause.empty());
  ASSERT_EQ(settings.size(), 3u);
  EXPECT_EQ(settings[0].value, "Ascend910B2");
  EXPECT_EQ(settings[2].kind, SettingKind::kCommand);

  r.nodes.push_back(
      {"nz", "", "NonZero", "", compat::Verdict::kAiCpu, compat::AtcError::kNone, "data-dependent", ""});
  r.summary.aicpu = 1;
  r.clean = false;
  s = CompatSection(r, "", nullptr);
  EXPECT_EQ(s.verdict, Verdict::kWarning);
  EXPECT_NE(s.cause.find("nz (NonZero) falls back to AI CPU"), std::string::npos);

  r.nodes.push_back({"x", "", "Foo", "my.domain", compat::Verdict::kUnsupported, compat::AtcError::kEZ3003,
                     "no kernel", ""});
  r.summary.unsupported = 1;
  r.deployable = false;
  s = CompatSection(r, "", nullptr);
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_EQ(s.cause, "EZ3003 x (my.domain::Foo): no kernel");  // unsupported before AI CPU
  EXPECT_EQ(FindMetric(s, "unsupported_nodes")->value, 1);
}

TEST(CompatSection, BlockingDynamicShapeComesBeforeAiCpu) {
  auto r = CleanCheck();
  r.nodes.push_back(
      {"nz", "", "NonZero", "", compat::Verdict::kAiCpu, compat::AtcError::kNone, "data-dependent", ""});
  r.dynamic.push_back({compat::FindingKind::kShapeSubgraph, false, "reshape", {}, "folds", "--write-static"});
  r.dynamic.push_back(
      {compat::FindingKind::kSymbolicInput, true, "x", {}, "input x has dim batch", "--batch N"});
  r.clean = r.deployable = false;
  const Section s = CompatSection(r, "", nullptr);
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_EQ(s.cause, "input x has dim batch");
  EXPECT_EQ(s.fix, "--batch N");
  EXPECT_EQ(FindMetric(s, "blocking_dynamic")->value, 1);
}

MemoryFacts Facts(int64_t needed, int64_t available) {
  MemoryFacts f;
  f.batch = 64;
  f.budget = {available + 1000, 1000};
  f.inference.total_bytes = needed;
  f.max_batch = 40;
  f.timeline = {{"a", "b"}, {10, 20}};
  return f;
}

TEST(MemorySection, FailWarningOkByHeadroom) {
  std::vector<Setting> settings;
  Section s = MemorySection(Facts(2000, 1000), &settings);
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_EQ(s.fix, "use batch 40 (the largest that fits)");
  ASSERT_EQ(settings.size(), 1u);
  EXPECT_EQ(settings[0].value, "40");  // the batch that fits, not the one asked for
  EXPECT_EQ(MemorySection(Facts(950, 1000), nullptr).verdict, Verdict::kWarning);
  EXPECT_EQ(MemorySection(Facts(900, 1000), nullptr).verdict, Verdict::kOk);
  settings.clear();
  s = MemorySection(Facts(500, 1000), &settings);
  EXPECT_EQ(settings[0].value, "64");
  ASSERT_EQ(s.charts.size(), 1u);
  EXPECT_EQ(s.charts[0].series[0].y.size(), 2u);
  EXPECT_EQ(s.charts[0].y_markers.size(), 1u);
}

TEST(CommSection, TimeoutFailsAndTheNoteSaysWhatIsMissing) {
  CommFacts f;
  f.cluster = "c";
  f.ranks = 16;
  f.grad_bytes = 1e8;
  f.rows = {{8, 0.01, 50, "ring"}, {16, 0.02, 60, "ring"}};
  f.buffsize_mb = 200;
  std::vector<Setting> settings;
  Section s = CommSection(f, &settings);
  EXPECT_EQ(s.verdict, Verdict::kOk);
  EXPECT_DOUBLE_EQ(FindMetric(s, "allreduce_ms")->value, 20);
  EXPECT_FALSE(s.notes.empty());
  EXPECT_EQ(settings.at(0).name, "HCCL_BUFFSIZE");
  f.timeouts.errors.push_back({"all but 3", "EI0002 notify-wait timeout", 1836, "rank 3 is late"});
  s = CommSection(f, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_NE(s.cause.find("EI0002"), std::string::npos);
}

class SimpleNetReport : public ::testing::Test {
 protected:
  static AnalyzeOptions Options(int64_t batch) {
    AnalyzeOptions o;
    o.batch = batch;
    o.load_at_batch = [](int64_t b) -> Expected<ir::Model> { return onnx_import::BuildSimpleNet(b, 1); };
    o.dev_target = &DevTarget();
    return o;
  }
  static const target::Target& DevTarget() {
    static const target::Target dev = *target::LoadTarget("cpu-dev");
    return dev;
  }
};

TEST_F(SimpleNetReport, MemoryNumbersAreTheAnalysesOwn) {
  auto target = target::LoadTarget("ascend910b2");
  ASSERT_TRUE(target.ok());
  const ir::Model m = onnx_import::BuildSimpleNet(64, 1);
  AnalyzeOptions o = Options(64);
  o.train = true;
  o.skip = {"precision"};
  auto r = BuildReport(m, *target, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto shapes = mem::StaticShapes(m.graph);
  ASSERT_TRUE(shapes.ok());
  const mem::TrainingOptions train{mem::Optimizer::kAdam, mem::Amp::kNone, 1};
  auto t = mem::PlanTraining(m.graph, *shapes, *target, train);
  ASSERT_TRUE(t.ok());
  const int64_t available = target->memory.device.value - target->memory.reserve.value;
  EXPECT_EQ(FindMetric(r->memory, "needed_bytes")->value, static_cast<double>(t->total_bytes));
  EXPECT_EQ(r->memory.verdict == Verdict::kFail, t->total_bytes > available);
  // The largest batch fits and the next one does not, by a direct training plan at each.
  const auto* max_batch = FindMetric(r->memory, "max_batch");
  ASSERT_NE(max_batch, nullptr);
  const auto b = static_cast<int64_t>(max_batch->value);
  for (int64_t at : {b, b + 1}) {
    const ir::Model mb = onnx_import::BuildSimpleNet(at, 1);
    auto tb = mem::PlanTraining(mb.graph, *mem::StaticShapes(mb.graph), *target, train);
    ASSERT_TRUE(tb.ok());
    EXPECT_EQ(tb->total_bytes <= available, at == b) << "batch " << at;
  }
  // The timeline's peak lies between weights + the live lower bound and the planned total.
  auto inf = mem::PlanInference(m.graph, *shapes, *target);
  ASSERT_TRUE(inf.ok());
  const auto& y = r->memory.charts.at(0).series.at(0).y;
  ASSERT_EQ(y.size(), m.graph.nodes.size());
  const double peak = *std::max_element(y.begin(), y.end()) * (1024.0 * 1024 * 1024);
  EXPECT_GE(peak, static_cast<double>(inf->weights_bytes + inf->lower_bound_bytes) - 1);
  EXPECT_LE(peak, static_cast<double>(inf->total_bytes) + 1);
}

TEST_F(SimpleNetReport, CompatPrecisionAndPerfAreTheAnalysesOwn) {
  auto target = target::LoadTarget("ascend910b2");
  ASSERT_TRUE(target.ok());
  const ir::Model m = onnx_import::BuildSimpleNet(2, 1);
  AnalyzeOptions o = Options(2);
  o.precision_mode = "must_keep_origin_dtype";
  o.samples = 2;
  auto r = BuildReport(m, *target, o);
  ASSERT_TRUE(r.ok());
  compat::CheckOptions co;
  co.precision_mode_v2 = "origin";  // the v2 twin of must_keep_origin_dtype
  auto check = compat::CheckModel(m, *target, co);
  ASSERT_TRUE(check.ok());
  const Verdict want = check->clean ? Verdict::kOk : check->deployable ? Verdict::kWarning : Verdict::kFail;
  EXPECT_EQ(r->compat.verdict, want);
  EXPECT_EQ(FindMetric(r->compat, "aicore_nodes")->value, static_cast<double>(check->summary.aicore));

  // Precision: the comparison `npugap precision --samples 2` runs: 2 samples at batch 2 are one
  // batch, seed 0.
  ASSERT_NE(r->precision.verdict, Verdict::kNotAvailable) << r->precision.not_available;
  pr::PrecisionOptions po;
  po.mode = "must_keep_origin_dtype";
  auto plan = pr::BuildPrecisionPlan(m, *target, po);
  ASSERT_TRUE(plan.ok());
  auto sets = pr::RandomSampleSets(m.graph, 0, 2).value();
  ASSERT_EQ(sets.size(), 1u);
  ASSERT_EQ(sets[0][0].numel(), exec::RandomInputs(m.graph, 0).value()[0].numel());
  auto ref = pr::MakeReferenceRun(m, pr::ReferencePrecision::kFP32, 1);
  ASSERT_TRUE(ref.ok());
  auto trace = pr::TraceReference(m, *ref, sets);
  auto run = pr::MakeTargetRun(m, *plan, 1);
  ASSERT_TRUE(trace.ok() && run.ok());
  auto c = pr::CompareWithReference(m, *trace, *run, sets, {});
  ASSERT_TRUE(c.ok());
  const auto& out = c->tensors[c->outputs.at(0)].metrics;
  EXPECT_DOUBLE_EQ(FindMetric(r->precision, "output_cosine")->value, out.cosine);
  EXPECT_DOUBLE_EQ(FindMetric(r->precision, "output_max_abs_error")->value, out.max_abs_err);
  EXPECT_EQ(r->precision.verdict == Verdict::kFail, out.cosine < pr::Thresholds{}.cosine);
  ASSERT_EQ(r->precision.charts.size(), 2u);
  EXPECT_EQ(r->precision.charts[0].series[0].y.size(), c->tensors.size());

  // Performance: graph-mode iteration on the target and on cpu-dev, as `npugap perf --compare-with`.
  ASSERT_NE(r->perf.verdict, Verdict::kNotAvailable) << r->perf.not_available;
  auto iteration = [&](const target::Target& t, const std::string& mode) {
    perf::LowerOptions lo;
    lo.precision_mode = mode;
    auto low = perf::Lower(m, t, lo);
    EXPECT_TRUE(low.ok());
    auto it = perf::SimulateIteration(*low, t, {}, &perf::PredictKernel);
    EXPECT_TRUE(it.ok());
    return it->iteration_ms;
  };
  const double deploy = iteration(*target, "must_keep_origin_dtype");
  const double dev = iteration(DevTarget(), "must_keep_origin_dtype");
  EXPECT_DOUBLE_EQ(FindMetric(r->perf, "deploy_ms")->value, deploy);
  EXPECT_DOUBLE_EQ(FindMetric(r->perf, "dev_ms")->value, dev);
  EXPECT_DOUBLE_EQ(FindMetric(r->perf, "slowdown")->value, deploy / dev);
  EXPECT_EQ(r->perf.verdict, deploy > dev ? Verdict::kWarning : Verdict::kOk);
  EXPECT_EQ(r->comm.verdict, Verdict::kNotAvailable);

  // --max-slowdown below the ratio fails the section; --skip leaves a section out with the reason.
  o.max_slowdown = 1.0;
  o.skip = {"precision"};
  auto gated = BuildReport(m, *target, o);
  ASSERT_TRUE(gated.ok());
  EXPECT_EQ(gated->perf.verdict, deploy / dev > 1.0 ? Verdict::kFail : Verdict::kOk);
  EXPECT_EQ(gated->precision.verdict, Verdict::kNotAvailable);
  EXPECT_NE(gated->precision.not_available.find("--skip precision"), std::string::npos);
}

// --dev-batch: the dev-target prediction runs on the model at the dev batch.
TEST_F(SimpleNetReport, DevBatchPredictsTheDevTargetAtItsOwnBatch) {
  auto target = target::LoadTarget("ascend910b2");
  ASSERT_TRUE(target.ok());
  const ir::Model m = onnx_import::BuildSimpleNet(4, 1);
  const ir::Model dev_model = onnx_import::BuildSimpleNet(2, 1);
  AnalyzeOptions o = Options(4);
  o.skip = {"precision", "memory"};
  auto same = BuildReport(m, *target, o);
  o.dev_model = &dev_model;
  o.dev_batch = 2;
  auto r = BuildReport(m, *target, o);
  ASSERT_TRUE(same.ok() && r.ok());
  ASSERT_NE(r->perf.verdict, Verdict::kNotAvailable) << r->perf.not_available;
  EXPECT_EQ(r->config.dev_batch, 2);
  EXPECT_EQ(same->config.dev_batch, 4);
  EXPECT_DOUBLE_EQ(FindMetric(r->perf, "deploy_ms")->value, FindMetric(same->perf, "deploy_ms")->value);
  const double dev2 = FindMetric(r->perf, "dev_ms")->value, dev4 = FindMetric(same->perf, "dev_ms")->value;
  EXPECT_LT(dev2, dev4);  // half the batch on the dev target
  EXPECT_DOUBLE_EQ(FindMetric(r->perf, "dev_sample_ms")->value, dev2 / 2);
  EXPECT_DOUBLE_EQ(FindMetric(r->perf, "slowdown")->value,
                   (FindMetric(r->perf, "deploy_ms")->value / 4) / (dev2 / 2));
}

TEST_F(SimpleNetReport, InferenceDefaultsToAtcsModeTrainingToTheFrameworks) {
  auto target = target::LoadTarget("ascend910b2");
  ASSERT_TRUE(target.ok());
  AnalyzeOptions o = Options(2);
  o.samples = 1;
  auto r = BuildReport(onnx_import::BuildSimpleNet(2, 1), *target, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->config.precision_mode, target->compiler->precision_mode_default.value);
  EXPECT_NE(
      FindMetric(r->precision, "output_cosine")->label.find(target->compiler->precision_mode_default.value),
      std::string::npos);
  // A training step runs under the framework, not ATC: torch_npu's default mode.
  o.train = true;
  o.skip = {"precision"};
  auto t = BuildReport(onnx_import::BuildSimpleNet(2, 1), *target, o);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->config.precision_mode, target->framework.default_precision_mode.value);
}

TEST_F(SimpleNetReport, CompatIsNotAvailableOnATargetWithoutAtc) {
  auto target = target::LoadTarget("cpu-dev");
  ASSERT_TRUE(target.ok());
  auto r = BuildReport(onnx_import::BuildSimpleNet(2, 1), *target, Options(2));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->compat.verdict, Verdict::kNotAvailable);
  EXPECT_FALSE(r->compat.not_available.empty());
}

TEST_F(SimpleNetReport, CommAllReduceIsTheSimulatorsTime) {
  auto target = target::LoadTarget("ascend910b2");
  auto cluster = comm::LoadCluster("atlas800t-a2", comm::FindClustersDir());
  ASSERT_TRUE(target.ok() && cluster.ok()) << cluster.status().message();
  const ir::Model m = onnx_import::BuildSimpleNet(4, 1);
  AnalyzeOptions o = Options(4);
  o.cluster = &*cluster;
  o.ranks = 16;
  o.skip = {"precision"};
  auto r = BuildReport(m, *target, o);
  ASSERT_TRUE(r.ok());
  ASSERT_NE(r->comm.verdict, Verdict::kNotAvailable) << r->comm.not_available;
  double grad = 0;
  for (const auto& [v, t] : m.graph.initializers) grad += static_cast<double>(t.nbytes());
  comm::CollectiveSpec spec;
  spec.bytes = grad;
  auto direct = comm::SimulateCollective(*cluster, 16, spec, {});
  ASSERT_TRUE(direct.ok());
  EXPECT_DOUBLE_EQ(FindMetric(r->comm, "allreduce_ms")->value, direct->time_s * 1e3);
  EXPECT_DOUBLE_EQ(FindMetric(r->comm, "grad_bytes")->value, grad);
  const auto& series = r->comm.charts.at(0).series.at(0);
  EXPECT_EQ(series.x.back(), 16);
  EXPECT_TRUE(std::is_sorted(series.x.begin(), series.x.end()));
}

}  // namespace
}  // namespace npugap::report

namespace npugap::report {
namespace {

PrecisionFacts Layers(double output_cosine) {
  PrecisionFacts f;
  f.mode = "fp16";
  f.samples = 8;
  f.cosine_threshold = 0.99;
  f.threshold_source = "test";
  f.layers = {{"conv", "Conv", 0.9999, 1e-3}, {"softmax", "Softmax", 0.95, 0.2}, {"fc", "Gemm", 0.98, 0.1}};
  f.output_cosine = output_cosine;
  f.keep_fp32 = {"softmax"};
  return f;
}

TEST(PrecisionSection, FirstFailingLayerIsMarkedAndKeepFp32IsTheFix) {
  std::vector<Setting> settings;
  const Section s = PrecisionSection(Layers(0.98), &settings);
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_NE(s.cause.find("softmax (Softmax)"), std::string::npos);
  EXPECT_EQ(s.fix, "keep these nodes in FP32 (ATC --keep_dtype): softmax");
  ASSERT_EQ(s.charts.size(), 2u);
  ASSERT_EQ(s.charts[0].x_markers.size(), 1u);
  EXPECT_EQ(s.charts[0].x_markers[0].at, 1);  // the second layer is the first below 0.99
  EXPECT_EQ(s.charts[0].y_markers[0].at, 0.99);
  ASSERT_EQ(settings.size(), 1u);
  EXPECT_EQ(settings[0].name, "--keep_dtype");
  EXPECT_EQ(PrecisionSection(Layers(0.995), nullptr).verdict, Verdict::kWarning);  // a layer, not the output
  PrecisionFacts clean = Layers(0.9999);
  for (auto& l : clean.layers) l.cosine = 0.9999;
  const Section ok = PrecisionSection(clean, nullptr);
  EXPECT_EQ(ok.verdict, Verdict::kOk);
  EXPECT_TRUE(ok.fix.empty());
  EXPECT_TRUE(ok.charts[0].x_markers.empty());
}

TEST(PrecisionSection, WithoutAKeepListTheFixIsTheSearchCommand) {
  PrecisionFacts f = Layers(0.98);
  f.keep_fp32.clear();
  f.suggest_command =
      "npugap precision m.onnx --target ascend910b2 --precision-mode force_fp16 --suggest-keep";
  std::vector<Setting> settings;
  const Section s = PrecisionSection(f, &settings);
  EXPECT_EQ(s.verdict, Verdict::kFail);
  EXPECT_NE(s.fix.find(f.suggest_command), std::string::npos);
  EXPECT_TRUE(settings.empty());  // no --keep_dtype setting without a list
}

PerfFacts Times(double dev, double deploy) {
  PerfFacts f;
  f.dev_target = "cpu-dev";
  f.dev_ms = dev;
  f.deploy_ms = deploy;
  f.eager_ms = 2 * deploy;
  f.breakdown = {{"cube", dev * 0.6, deploy * 0.3}, {"host dispatch", dev * 0.1, deploy * 0.6}};
  f.top_kernels = {{"conv1", "Conv2D", 900, "cube"}, {"td", "TransData", 300, "memory"}};
  return f;
}

TEST(PerfSection, SlowdownAgainstTheGateAndTheGrowingPartAsCause) {
  PerfFacts f = Times(100, 180);
  Section s = PerfSection(f, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kWarning);  // slower than dev, no gate given
  EXPECT_NE(s.cause.find("host dispatch"), std::string::npos);
  EXPECT_NE(s.fix.find("compiled graph"), std::string::npos);
  f.max_slowdown = 1.5;
  EXPECT_EQ(PerfSection(f, nullptr).verdict, Verdict::kFail);
  f.max_slowdown = 2;
  EXPECT_EQ(PerfSection(f, nullptr).verdict, Verdict::kOk);
  EXPECT_EQ(PerfSection(Times(100, 50), nullptr).verdict, Verdict::kOk);
  ASSERT_EQ(s.charts.size(), 2u);
  EXPECT_EQ(s.charts[0].series.size(), 2u);  // dev and deploy
  EXPECT_EQ(s.charts[1].categories[1], "TransData");
}

// The seed's scenario: dev at batch 32, deploy at 64. Iterations of different batches are not
// comparable; the verdict and --max-slowdown use the time per sample.
TEST(PerfSection, DifferentBatchesCompareTimePerSample) {
  PerfFacts f = Times(100, 150);  // 1.5x slower per iteration ...
  f.dev_batch = 32;
  f.deploy_batch = 64;  // ... but 0.75x per sample
  Section s = PerfSection(f, nullptr);
  EXPECT_EQ(s.verdict, Verdict::kOk);
  EXPECT_DOUBLE_EQ(FindMetric(s, "slowdown")->value, (150.0 / 64) / (100.0 / 32));
  EXPECT_DOUBLE_EQ(FindMetric(s, "deploy_sample_ms")->value, 150.0 / 64);
  EXPECT_DOUBLE_EQ(FindMetric(s, "dev_sample_ms")->value, 100.0 / 32);
  EXPECT_EQ(s.metrics[0].key, "deploy_sample_ms");           // the summary leads with per-sample times
  EXPECT_DOUBLE_EQ(FindMetric(s, "deploy_ms")->value, 150);  // iteration times kept
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("1.3x faster than cpu-dev per sample"), std::string::npos) << s.notes[0];
  f.max_slowdown = 1.2;  // the iteration ratio (1.5) would fail it; per sample (0.75) passes
  EXPECT_EQ(PerfSection(f, nullptr).verdict, Verdict::kOk);
  f.deploy_ms = 400;  // 6.25 / 3.125 = 2x per sample
  EXPECT_EQ(PerfSection(f, nullptr).verdict, Verdict::kFail);
  f.max_slowdown.reset();
  EXPECT_EQ(PerfSection(f, nullptr).verdict, Verdict::kWarning);
  // Same batch on both: the iteration ratio, as before.
  f.dev_batch = 64;
  EXPECT_DOUBLE_EQ(FindMetric(PerfSection(f, nullptr), "slowdown")->value, 4.0);
  EXPECT_EQ(PerfSection(f, nullptr).metrics[0].key, "deploy_ms");
}

TEST(CommSection, EfficiencyReplacesTheNoteWhenPerfGivesIt) {
  CommFacts f;
  f.cluster = "c";
  f.ranks = 16;
  f.grad_bytes = 1e8;
  f.rows = {{8, 0.01, 50, "ring", 0.95}, {16, 0.02, 60, "ring", 0.9}};
  const Section s = CommSection(f, nullptr);
  EXPECT_TRUE(s.notes.empty());
  ASSERT_EQ(s.charts.size(), 2u);
  EXPECT_EQ(s.charts[1].id, "chart-comm-efficiency");
}

}  // namespace
}  // namespace npugap::report
