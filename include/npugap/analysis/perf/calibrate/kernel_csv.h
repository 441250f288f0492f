// Kernel records in the calibration CSV format (shared/calibration/ascend910/*.csv): a header row
// naming at least op_type, block_dim, inputs, outputs, time_us (any order, extra columns kept),
// then one kernel per line; operands `FORMAT:dtype:d0xd1x...` separated by `;` (an empty shape is
// a scalar). Fields may be quoted as RFC 4180 has it, within one line (the calibration files never
// are; `perf --out` quotes a kernel name that holds a comma). Profiler output (msprof op_summary,
// torch_npu kernel_details) is read by ReadKernelProfile (kernel_profile_reader.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/base/status.h"

namespace npugap::analysis::perf {

struct KernelRecord {
  Kernel kernel;
  double time_us = 0;  // measured; the mean over `launches`
  int launches = 1;    // profiler rows of this kernel that the record stands for (kernel_profile_reader.h)
  int line = 0;        // 1-based line in the file (of the first row, for several launches)
  std::string text;    // the row as read, for writing it back with a prediction
};

struct KernelTable {
  std::string header;  // the header row as read
  std::vector<KernelRecord> records;
};

// Parses CSV text; `origin` names it in errors, which read "ORIGIN:LINE: column 'NAME' (COL): ...".
Expected<KernelTable> ParseKernelCsv(std::string_view text, const std::string& origin);
Expected<KernelTable> ReadKernelCsv(const std::string& path);

// One operand "FORMAT:dtype:d0xd1x..."; the error says what part is wrong.
Expected<Operand> ParseOperand(std::string_view text);
// The inverse: "FORMAT:dtype:d0xd1x..." as ParseOperand reads it (a scalar has an empty shape).
std::string FormatOperand(const Operand& operand);

}  // namespace npugap::analysis::perf
