// How the dtype labels of kernel records are read (`npugap perf --kernels FILE --dtype-labels R`).
//
// The calibration files of shared/calibration/ascend910 were written by MindSpore's profiler
// (framework_parser.py), which names each tensor's MindSpore TypeId through a hard-coded table
// (`VmDataType`). The labels of both files read one place too early in that table: comparisons
// write `number_type_begin` (the entry before bool), BN's float32-only channel inputs read float16,
// ReLUV2's uint8 bit mask reads uint (written uint32), the int32 global step reads int16.
// `kTypeIdShifted` reads every label as the type one place later (docs/fidelity.md, session 14,
// perfbnvec). The default keeps the labels as written: the cost model's figures were built on them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "npugap/analysis/perf/calibrate/kernel_csv.h"
#include "npugap/base/status.h"

namespace npugap::analysis::perf {

enum class DtypeLabels { kAsWritten, kTypeIdShifted };

// The names `--dtype-labels` takes: "as-written", "typeid-shifted".
std::vector<std::string> DtypeLabelReadings();
// A reading by name; the error lists the valid names.
Expected<DtypeLabels> ParseDtypeLabels(std::string_view name);

// The dtype a record's label stands for under `reading`. Under kTypeIdShifted a label with no
// known successor in MindSpore's TypeId order (a generic int / uint / float, bool, int64, uint64,
// float64) is an error naming the label.
Expected<std::string> ReadDtypeLabel(std::string_view label, DtypeLabels reading);

// Every operand's dtype of `table` read under `reading`; each record's text (written back by
// --out) stays as read. The error reads "ORIGIN:LINE: column 'inputs': operand '...': ...".
Status ApplyDtypeLabels(KernelTable& table, DtypeLabels reading, const std::string& origin);

}  // namespace npugap::analysis::perf
