// Calibrate: predicts each record and aggregates the errors (include/npugap/analysis/perf/calibrate/calibration.h).
#include "npugap/analysis/perf/calibrate/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace npugap::analysis::perf {

CalibrationReport Calibrate(const std::vector<KernelRecord>& records, const target::Target& target,
                            double core_share) {
  CalibrationReport rep;
  rep.core_share = core_share;
  rep.predictions.reserve(records.size());
  struct Acc {
    int count = 0;
    double measured = 0, predicted = 0, abs_err = 0, rel_err_sum = 0;
  };
  std::map<std::string, Acc> by_type;
  std::map<std::string, int> unknown;
  for (const KernelRecord& r : records) {
    KernelCost c = PredictKernel(r.kernel, target);
    rep.measured_us += r.time_us;
    rep.predicted_us += c.time_us;
    // A note says why a record of a type the model knows was not costed.
    if (!c.note.empty())
      rep.notes.push_back(fmt::format("line {}: {}: {}", r.line, r.kernel.op_type, c.note));
    if (!c.known) {
      ++unknown[r.kernel.op_type];
    } else {
      Acc& a = by_type[r.kernel.op_type];
      ++a.count;
      a.measured += r.time_us;
      a.predicted += c.time_us;
      a.abs_err += std::abs(c.time_us - r.time_us);
      // A zero measured time cannot carry a relative error; it still counts in the weighted one.
      if (r.time_us > 0) a.rel_err_sum += std::abs(c.time_us - r.time_us) / r.time_us;
    }
    rep.predictions.push_back(std::move(c));
  }
  rep.sum_error = rep.measured_us > 0 ? rep.predicted_us / rep.measured_us - 1 : 0;
  for (const auto& [type, a] : by_type) {
    OpTypeError e;
    e.op_type = type;
    e.count = a.count;
    e.measured_us = a.measured;
    e.predicted_us = a.predicted;
    e.mape = a.count ? a.rel_err_sum / a.count : 0;
    e.weighted_mape = a.measured > 0 ? a.abs_err / a.measured : 0;
    e.time_share = rep.measured_us > 0 ? a.measured / rep.measured_us : 0;
    rep.op_types.push_back(std::move(e));
  }
  std::sort(rep.op_types.begin(), rep.op_types.end(), [](const OpTypeError& a, const OpTypeError& b) {
    return a.measured_us != b.measured_us ? a.measured_us > b.measured_us : a.op_type < b.op_type;
  });
  // The core: the largest op types until they cover `core_share` of the measured time.
  double covered = 0;
  for (OpTypeError& e : rep.op_types) {
    if (covered >= core_share) break;
    e.in_core = true;
    covered += e.time_share;
    rep.core_mape += e.mape;
    rep.core_weighted_mape += e.weighted_mape;
    ++rep.core_types;
  }
  if (rep.core_types > 0) {
    rep.core_mape /= rep.core_types;
    rep.core_weighted_mape /= rep.core_types;
  }
  for (const auto& [type, n] : unknown) rep.unknown.emplace_back(type, n);
  return rep;
}

}  // namespace npugap::analysis::perf
