// Device formats and dtypes as the kernel-record readers spell them for the cost model, and CANN's
// spellings of both in profiler output (msprof op_summary, torch_npu kernel_details). The tables and
// their sources are in kernel_reader_spellings.cc and docs/kernel-profiles.md.
#pragma once

#include <string>
#include <string_view>

#include "npugap/base/status.h"

namespace npugap::analysis::perf {

// A device format a kernel record may name: CANN's Format enum (as msprof prints it), plus the
// calibration CSV's short name FracZ and MindSpore's DefaultFormat.
bool IsDeviceFormat(std::string_view format);

// A kernel type or dtype name: letters, digits and underscores, at least one.
bool IsIdentifier(std::string_view s);

// The record's format for one CANN spelling: "FORMAT_ND" -> "ND", "FRACTAL_Z" -> "FracZ",
// "FRACTAL_Z:16" (a sub-format) -> "FracZ". The error names the spelling.
Expected<std::string> FormatFromCann(std::string_view cann);

// The record's dtype for one CANN (GE DataType) spelling: "FLOAT" -> "float32",
// "DT_BF16" -> "bfloat16", "FLOAT16_" (MindSpore's TypeId) -> "float16". The error names it.
Expected<std::string> DtypeFromCann(std::string_view cann);

}  // namespace npugap::analysis::perf
