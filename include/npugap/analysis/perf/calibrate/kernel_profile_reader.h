// Measured kernels from any of the three files users have, read into the same kernel records
// (`perf --kernels`, `npugap calibrate`): the calibration CSV (kernel_csv.h), CANN msprof's
// op_summary_*.csv and the torch_npu profiler's ASCEND_PROFILER_OUTPUT/kernel_details.csv. The
// format is told by the header; the column mapping, CANN's format and dtype spellings, and the rules
// for repeated launches and for rows that are not kernels are in docs/kernel-profiles.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "npugap/analysis/perf/calibrate/kernel_csv.h"
#include "npugap/analysis/perf/cost/dtype_labels.h"
#include "npugap/base/status.h"

namespace npugap::analysis::perf {

enum class ProfileFormat { kCalibrationCsv, kMsprofOpSummary, kTorchNpuKernelDetails };

// "calibration CSV", "msprof op_summary", "torch_npu kernel_details".
std::string_view ProfileFormatName(ProfileFormat format);
// How a format's dtype labels read unless told otherwise: the calibration CSV's are MindSpore
// profiler names one TypeId early (typeid-shifted, dtype_labels.h); the profilers print GE's true
// DataType names (as-written).
DtypeLabels DefaultDtypeLabels(ProfileFormat format);
// The name `--dtype-labels` gives the reading: "as-written", "typeid-shifted".
std::string_view DtypeLabelsName(DtypeLabels labels);

struct KernelProfile {
  ProfileFormat format = ProfileFormat::kCalibrationCsv;
  DtypeLabels dtype_labels = DtypeLabels::kAsWritten;  // the reading applied to the records' dtypes
  // Calibration CSV: the file's header and rows. Profiler formats: one record per kernel (the
  // mean of its launches), its `text` a calibration-CSV row under the header
  // "op_type,block_dim,inputs,outputs,time_us,launches,name", so `perf --out` writes that format.
  KernelTable table;
  int rows = 0;             // data rows read
  int merged_launches = 0;  // rows folded into the record of an earlier launch of the same kernel
  // Rows that are no AI Core / AI Vector Core / AI CPU kernel (communication, DSA, a row without a
  // kernel type), by Task Type / Accelerator Core or reason, most rows first.
  std::vector<std::pair<std::string, int>> skipped;
};

// Parses `text`; `origin` names it in errors, which read "ORIGIN:LINE: column 'NAME' (COL): ...".
// `dtype_labels` overrides the format's DefaultDtypeLabels. A profiler file with no kernel row is
// an error; a calibration CSV with a header only is an empty profile.
Expected<KernelProfile> ParseKernelProfile(std::string_view text, const std::string& origin,
                                           std::optional<DtypeLabels> dtype_labels = std::nullopt);
Expected<KernelProfile> ReadKernelProfile(const std::string& path,
                                          std::optional<DtypeLabels> dtype_labels = std::nullopt);

}  // namespace npugap::analysis::perf
