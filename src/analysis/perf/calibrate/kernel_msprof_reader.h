// The profiler formats of ReadKernelProfile (kernel_profile_reader.h): msprof op_summary_*.csv and
// torch_npu kernel_details.csv, one reader for both (kernel_details is op_summary with renamed
// columns).
#pragma once

#include <string>
#include <string_view>

#include "npugap/analysis/perf/calibrate/kernel_profile_reader.h"

namespace npugap::analysis::perf {

// The header names that tell the profiler formats apart: op_summary's "Op Name", kernel_details'
// "Name".
inline constexpr std::string_view kMsprofNameColumn = "Op Name";
inline constexpr std::string_view kKernelDetailsNameColumn = "Name";

// Records of `text`, a file of `format` (not kCalibrationCsv), with their dtypes as GE names them
// (no dtype reading applied).
Expected<KernelProfile> ParseProfilerCsv(std::string_view text, const std::string& origin,
                                         ProfileFormat format);

}  // namespace npugap::analysis::perf
