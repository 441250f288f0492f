// Calibration of the cost model against measured kernels: predictions for every record and the
// errors per op type, weighted by time and unweighted, over the op types that make up most of the
// measured time, and of the summed time (issue 5, item 3).
#pragma once

#include <string>
#include <vector>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf {

struct OpTypeError {
  std::string op_type;
  int count = 0;
  double measured_us = 0, predicted_us = 0;
  double mape = 0;           // mean over the records of |predicted - measured| / measured
  double weighted_mape = 0;  // sum |predicted - measured| / sum measured
  double time_share = 0;     // of the workload's measured time
  bool in_core = false;      // among the op types that make up `core_share` of the time
};

struct CalibrationReport {
  std::vector<KernelCost> predictions;               // one per record, in order
  std::vector<OpTypeError> op_types;                 // by measured time, largest first (known types only)
  std::vector<std::pair<std::string, int>> unknown;  // op types without a rule, with their counts
  std::vector<std::string> notes;                    // records of known types that could not be costed
  double measured_us = 0, predicted_us = 0;          // over every record (unknown ones predict 0)
  double sum_error = 0;                              // predicted / measured - 1
  double core_share = 0.9;
  double core_mape = 0;           // mean of `mape` over the core op types
  double core_weighted_mape = 0;  // mean of `weighted_mape` over the core op types
  int core_types = 0;
};

CalibrationReport Calibrate(const std::vector<KernelRecord>& records, const target::Target& target,
                            double core_share = 0.9);

}  // namespace npugap::analysis::perf
