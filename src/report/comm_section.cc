// Communication section: the gradient all-reduce of one data-parallel step on the cluster, from
// small rank counts up to --ranks, and whether any rank hits an HCCL timeout.
#include <fmt/format.h>

#include "npugap/report/build.h"
#include "npugap/report/format.h"

namespace npugap::report {

Section CommSection(const CommFacts& f, std::vector<Setting>* settings) {
  Section s;
  s.key = "comm";
  s.title = "Communication";
  if (f.rows.empty()) {
    return NotAvailableSection("comm", "Communication", "no rank count of the cluster could be simulated");
  }
  const CommRow& last = f.rows.back();
  s.verdict = f.timeouts.errors.empty() ? Verdict::kOk : Verdict::kFail;
  s.metrics.push_back({"allreduce_ms", fmt::format("gradient all-reduce at {} ranks", last.ranks),
                       last.allreduce_s * 1e3, "ms", FormatMs(last.allreduce_s * 1e3)});
  s.metrics.push_back({"grad_bytes", "gradient bytes", f.grad_bytes, "bytes", FormatBytes(f.grad_bytes)});
  s.metrics.push_back(
      {"busbw_gbps", "bus bandwidth", last.busbw_gbps, "GB/s", fmt::format("{:.1f} GB/s", last.busbw_gbps)});
  if (!f.timeouts.errors.empty()) {
    const auto& e = f.timeouts.errors.front();
    s.cause = fmt::format("ranks {}: {} after {:.0f} s: {}", e.ranks, e.error_class, e.at_s, e.reason);
    s.fix = "raise HCCL_EXEC_TIMEOUT / HCCL_CONNECT_TIMEOUT above the wait, or remove the straggler";
  }
  if (last.scaling_efficiency) {
    s.metrics.push_back({"scaling_efficiency", fmt::format("scaling efficiency at {} ranks", last.ranks),
                         *last.scaling_efficiency, "", FormatPercent(*last.scaling_efficiency)});
  } else {
    s.notes.push_back(f.scaling_note.empty() ? "scaling efficiency: not computed" : f.scaling_note);
  }
  s.details.push_back(fmt::format("algorithm at {} ranks: {}", last.ranks, last.algo));
  s.details.push_back(
      fmt::format("HCCL_EXEC_TIMEOUT effective {:.0f} s (margin {:.0f} s), HCCL_CONNECT_TIMEOUT "
                  "effective {:.0f} s",
                  f.timeouts.exec_effective_s, f.timeouts.exec_margin_s, f.timeouts.connect_effective_s));
  Chart c;
  c.id = "chart-comm-allreduce";
  c.title = fmt::format("Gradient all-reduce ({}) on {}", FormatBytes(f.grad_bytes), f.cluster);
  c.x_label = "ranks";
  c.y_label = "ms";
  c.log_x = true;
  Series line{"all-reduce", {}, {}};
  for (const CommRow& r : f.rows) {
    line.x.push_back(r.ranks);
    line.y.push_back(r.allreduce_s * 1e3);
  }
  c.series.push_back(std::move(line));
  s.charts.push_back(std::move(c));
  Chart e;
  e.id = "chart-comm-efficiency";
  e.title = "Data-parallel scaling efficiency (compute / step)";
  e.x_label = "ranks";
  e.y_label = "efficiency";
  e.log_x = true;
  Series eff{"efficiency", {}, {}};
  for (const CommRow& r : f.rows) {
    if (!r.scaling_efficiency) continue;
    eff.x.push_back(r.ranks);
    eff.y.push_back(*r.scaling_efficiency);
  }
  if (!eff.x.empty()) {
    e.series.push_back(std::move(eff));
    s.charts.push_back(std::move(e));
  }
  if (settings != nullptr && f.buffsize_mb > 0) {
    settings->push_back({SettingKind::kEnv, "HCCL_BUFFSIZE", fmt::format("{:.0f}", f.buffsize_mb),
                         "comm: the buffer size the all-reduce times assume (" + f.buffsize_source + ")"});
  }
  return s;
}

}  // namespace npugap::report
