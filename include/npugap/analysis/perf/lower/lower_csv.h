// The lowered kernels of a model written in the calibration CSV format (kernel_csv.h), so that
// npugap's own lowering can be set side by side with a measured kernel inventory
// (shared/calibration/ascend910/*.csv) and fed back to `perf --kernels`.
#pragma once

#include <string>

#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/calibrate/kernel_csv.h"
#include "npugap/analysis/perf/lower/lower.h"

namespace npugap::analysis::perf {

// One row per lowered kernel, in execution order, under the header
// `op_type,block_dim,inputs,outputs,time_us,phase,category,name`: the required columns of the
// calibration format first, time_us being the cost model's time of the kernel alone (no graph
// launch cost), then where the kernel belongs and the ir node(s) it came from. `iteration` must
// come from SimulateIteration on `lowering` (one timed kernel per lowered kernel).
Expected<std::string> LoweredKernelsCsv(const Lowering& lowering, const IterationResult& iteration);

}  // namespace npugap::analysis::perf
