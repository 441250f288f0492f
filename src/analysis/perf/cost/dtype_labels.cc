// Reading the dtype labels of kernel records (include/npugap/analysis/perf/cost/dtype_labels.h).
//
// MindSpore's TypeId orders its number types bool, int, int8, int16, int32, int64, uint, uint8,
// uint16, uint32, uint64, float, float16, float32, float64 after a `kNumberTypeBegin` marker
// (mindspore/core/ir/dtype/type_id.h). The profiler's framework_parser.py prints a tensor's TypeId
// through its own numbered copy of that list (`VmDataType`, NUMBER_TYPE_BEGIN = 26 ...
// NUMBER_TYPE_FLOAT16 = 39); a TypeId enum with one entry fewer before the number types (as the
// 2019 ir/dtype/type.h, which has no kMetaTypeEllipsis) makes every name come out one place early.
// The calibration files show exactly that for every type they hold (docs/fidelity.md, session 14).
#include "npugap/analysis/perf/cost/dtype_labels.h"

#include <fmt/format.h>

#include <array>

namespace npugap::analysis::perf {
namespace {

struct Shift {
  std::string_view label;   // as the calibration CSV spells the profiler's name
  std::string_view actual;  // the TypeId one place later
};
// The CSV writes NUMBER_TYPE_FLOAT as float32 and NUMBER_TYPE_UINT as uint32 (the raw source
// files, Huawei-Performance-Model/Ascend-910B, next to shared/calibration's rows); the other
// names are the profiler's own, lower-cased. Labels whose successor is a generic int / uint /
// float or the end marker (bool, int64, uint64, float64) have no reading.
constexpr std::array kShifts = {
    Shift{"number_type_begin", "bool"},
    Shift{"int8", "int16"},
    Shift{"int16", "int32"},
    Shift{"int32", "int64"},
    Shift{"uint32", "uint8"},
    Shift{"uint8", "uint16"},
    Shift{"uint16", "uint32"},
    Shift{"float32", "float16"},
    Shift{"float16", "float32"},
};

constexpr std::array<std::string_view, 2> kNames = {"as-written", "typeid-shifted"};

}  // namespace

std::vector<std::string> DtypeLabelReadings() { return {kNames.begin(), kNames.end()}; }

Expected<DtypeLabels> ParseDtypeLabels(std::string_view name) {
  if (name == kNames[0]) return DtypeLabels::kAsWritten;
  if (name == kNames[1]) return DtypeLabels::kTypeIdShifted;
  return Status::InvalidArgument(
      fmt::format("--dtype-labels '{}': not a reading; valid: {}, {}", name, kNames[0], kNames[1]));
}

Expected<std::string> ReadDtypeLabel(std::string_view label, DtypeLabels reading) {
  if (reading == DtypeLabels::kAsWritten) return std::string(label);
  for (const Shift& s : kShifts) {
    if (s.label == label) return std::string(s.actual);
  }
  return Status::InvalidArgument(
      fmt::format("dtype label '{}' has no typeid-shifted reading (the type after it in MindSpore's "
                  "TypeId order is not a sized type)",
                  label));
}

Status ApplyDtypeLabels(KernelTable& table, DtypeLabels reading, const std::string& origin) {
  if (reading == DtypeLabels::kAsWritten) return Status::Ok();
  for (KernelRecord& r : table.records) {
    for (auto [column, list] :
         {std::pair{"inputs", &r.kernel.inputs}, std::pair{"outputs", &r.kernel.outputs}}) {
      for (Operand& op : *list) {
        auto actual = ReadDtypeLabel(op.dtype, reading);
        if (!actual.ok()) {
          return Status::InvalidArgument(fmt::format("{}:{}: column '{}': operand '{}': {}", origin, r.line,
                                                     column, FormatOperand(op), actual.status().message()));
        }
        op.dtype = *actual;
      }
    }
  }
  return Status::Ok();
}

}  // namespace npugap::analysis::perf
