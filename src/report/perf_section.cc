// Performance section (builder): iteration time dev vs deploy, where the time goes, the top
// kernels, and the eager -> graph gain.
#include <algorithm>

#include <fmt/format.h>

#include "npugap/report/build.h"
#include "npugap/report/format.h"

namespace npugap::report {

Section PerfSection(const PerfFacts& f, std::vector<Setting>* settings) {
  (void)settings;  // no setting follows from the timing alone yet
  Section s;
  s.key = "perf";
  s.title = "Performance";
  s.notes = f.notes;
  const bool per_sample = f.dev_batch > 0 && f.deploy_batch > 0 && f.dev_batch != f.deploy_batch;
  const double dev_sample_ms = f.dev_batch > 0 ? f.dev_ms / static_cast<double>(f.dev_batch) : 0;
  const double deploy_sample_ms = f.deploy_batch > 0 ? f.deploy_ms / static_cast<double>(f.deploy_batch) : 0;
  const double slowdown = per_sample ? (dev_sample_ms > 0 ? deploy_sample_ms / dev_sample_ms : 0)
                                     : (f.dev_ms > 0 ? f.deploy_ms / f.dev_ms : 0);
  if (f.max_slowdown) {
    s.verdict = slowdown > *f.max_slowdown ? Verdict::kFail : Verdict::kOk;
  } else {
    s.verdict = slowdown > 1 ? Verdict::kWarning : Verdict::kOk;
  }
  // The summary shows the first three: per-sample times and their ratio when the batches differ
  // (iteration times of different batches are not comparable), iteration times otherwise.
  auto at = [](int64_t batch) { return batch > 0 ? fmt::format(" (batch {})", batch) : std::string(); };
  auto per_s = [](double ms) { return ms > 0 ? 1e3 / ms : 0.0; };
  std::vector<Metric> iteration = {
      {"deploy_ms", "iteration on the target" + at(f.deploy_batch), f.deploy_ms, "ms", FormatMs(f.deploy_ms)},
      {"dev_ms", "iteration on " + f.dev_target + at(f.dev_batch), f.dev_ms, "ms", FormatMs(f.dev_ms)}};
  std::vector<Metric> sample;
  if (f.deploy_batch > 0 && f.dev_batch > 0) {
    sample = {{"deploy_sample_ms", "per sample on the target", deploy_sample_ms, "ms",
               fmt::format("{} ({:.0f} samples/s)", FormatMs(deploy_sample_ms), per_s(deploy_sample_ms))},
              {"dev_sample_ms", "per sample on " + f.dev_target, dev_sample_ms, "ms",
               fmt::format("{} ({:.0f} samples/s)", FormatMs(dev_sample_ms), per_s(dev_sample_ms))}};
  }
  const Metric ratio{"slowdown", per_sample ? "deploy / dev, per sample" : "deploy / dev", slowdown, "",
                     fmt::format("{:.2f}x", slowdown)};
  for (const auto& m : per_sample ? sample : iteration) s.metrics.push_back(m);
  s.metrics.push_back(ratio);
  for (const auto& m : per_sample ? iteration : sample) s.metrics.push_back(m);
  if (slowdown > 0 && slowdown < 1) {
    s.notes.push_back(fmt::format("the target is predicted {:.1f}x faster than {}{}", 1 / slowdown,
                                  f.dev_target, per_sample ? " per sample" : ""));
  }
  if (f.eager_ms) {
    s.metrics.push_back({"eager_ms", "eager mode on the target", *f.eager_ms, "ms", FormatMs(*f.eager_ms)});
  }
  if (s.verdict != Verdict::kOk && !f.breakdown.empty()) {
    // The first cause: the part that grew most from dev to deploy.
    const auto worst = std::max_element(
        f.breakdown.begin(), f.breakdown.end(),
        [](const TimePart& a, const TimePart& b) { return a.deploy_ms - a.dev_ms < b.deploy_ms - b.dev_ms; });
    s.cause = fmt::format("{} takes {} on the target vs {} on {}", worst->name, FormatMs(worst->deploy_ms),
                          FormatMs(worst->dev_ms), f.dev_target);
    if (per_sample) s.cause += fmt::format(" (per iteration: batch {} vs {})", f.deploy_batch, f.dev_batch);
  }
  // Only a gain worth a change of mode (5%, a rule of this report) is offered as the fix.
  if (f.eager_ms && *f.eager_ms > 1.05 * f.deploy_ms) {
    s.fix = fmt::format("run the compiled graph, not eager: {} -> {}", FormatMs(*f.eager_ms),
                        FormatMs(f.deploy_ms));
  }
  Chart bd{"chart-perf-breakdown",
           per_sample ? fmt::format("Iteration time: dev (batch {}) vs deploy (batch {})", f.dev_batch,
                                    f.deploy_batch)
                      : std::string("Iteration time: dev vs deploy"),
           ChartKind::kBar,
           "",
           "ms",
           {},
           {},
           {},
           {},
           false};
  Series dev{f.dev_target, {}, {}}, dep{"deploy", {}, {}};
  for (size_t i = 0; i < f.breakdown.size(); ++i) {
    bd.categories.push_back(f.breakdown[i].name);
    dev.x.push_back(static_cast<double>(i));
    dev.y.push_back(f.breakdown[i].dev_ms);
    dep.x.push_back(static_cast<double>(i));
    dep.y.push_back(f.breakdown[i].deploy_ms);
  }
  bd.series = {std::move(dev), std::move(dep)};
  if (!f.breakdown.empty()) s.charts.push_back(std::move(bd));
  Chart top{
      "chart-perf-kernels", "Top kernels on the target", ChartKind::kBar, "", "us", {}, {}, {}, {}, false};
  Series t{"time", {}, {}};
  for (size_t i = 0; i < f.top_kernels.size(); ++i) {
    top.categories.push_back(f.top_kernels[i].op_type);
    t.x.push_back(static_cast<double>(i));
    t.y.push_back(f.top_kernels[i].time_us);
    s.details.push_back(fmt::format("{} ({}, {}-bound): {:.1f} us", f.top_kernels[i].name,
                                    f.top_kernels[i].op_type, f.top_kernels[i].bound,
                                    f.top_kernels[i].time_us));
  }
  top.series.push_back(std::move(t));
  if (!f.top_kernels.empty()) s.charts.push_back(std::move(top));
  return s;
}

}  // namespace npugap::report
