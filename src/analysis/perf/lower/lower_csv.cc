// Writer of lowered kernels in the calibration CSV format (lower_csv.h).
#include "npugap/analysis/perf/lower/lower_csv.h"

#include <fmt/format.h>

namespace npugap::analysis::perf {
namespace {

// The format has no quoting (kernel_csv.h), so a separator inside an ONNX node name would split
// the row; node names are the one free-text field.
std::string CsvSafe(std::string s) {
  for (char& c : s) {
    if (c == ',' || c == '\n' || c == '\r') c = '_';
  }
  return s;
}

std::string OperandList(const std::vector<Operand>& operands) {
  std::string out;
  for (const Operand& o : operands) out += (out.empty() ? "" : ";") + FormatOperand(o);
  return out;
}

}  // namespace

Expected<std::string> LoweredKernelsCsv(const Lowering& lowering, const IterationResult& iteration) {
  if (iteration.kernels.size() != lowering.kernels.size()) {
    return Status::Internal(fmt::format("lowered kernels: {} kernels but {} timed", lowering.kernels.size(),
                                        iteration.kernels.size()));
  }
  std::string out = "op_type,block_dim,inputs,outputs,time_us,phase,category,name\n";
  for (size_t i = 0; i < lowering.kernels.size(); ++i) {
    const LoweredKernel& lk = lowering.kernels[i];
    const TimedKernel& t = iteration.kernels[i];
    out += fmt::format("{},{},{},{},{:.3f},{},{},{}\n", lk.kernel.op_type, t.block_dim,
                       OperandList(lk.kernel.inputs), OperandList(lk.kernel.outputs), t.kernel_us,
                       PhaseName(lk.phase), CategoryName(lk.category), CsvSafe(lk.kernel.name));
  }
  return out;
}

}  // namespace npugap::analysis::perf
