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
  const double slowdown = f.dev_ms > 0 ? f.deploy_ms / f.dev_ms : 0;
  if (f.max_slowdown) {
    s.verdict = slowdown > *f.max_slowdown ? Verdict::kFail : Verdict::kOk;
  } else {
    s.verdict = slowdown > 1 ? Verdict::kWarning : Verdict::kOk;
  }
  s.metrics.push_back({"deploy_ms", "iteration on the target", f.deploy_ms, "ms", FormatMs(f.deploy_ms)});
  s.metrics.push_back({"dev_ms", "iteration on " + f.dev_target, f.dev_ms, "ms", FormatMs(f.dev_ms)});
  s.metrics.push_back({"slowdown", "deploy / dev", slowdown, "", fmt::format("{:.2f}x", slowdown)});
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
  }
  // Only a gain worth a change of mode (5%, a rule of this report) is offered as the fix.
  if (f.eager_ms && *f.eager_ms > 1.05 * f.deploy_ms) {
    s.fix = fmt::format("run the compiled graph, not eager: {} -> {}", FormatMs(*f.eager_ms),
                        FormatMs(f.deploy_ms));
  }
  Chart bd{"chart-perf-breakdown",
           "Iteration time: dev vs deploy",
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
