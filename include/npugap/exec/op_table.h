// The op table: one row per (domain, op_type, opset range) with the kernel that runs it.
// Each row also carries the op's support rule on Ascend (op_support.h), so the executor and the
// compatibility check share one list.
// Each op family contributes its rows from its own file (ops/<family>.cc); this header is the
// single place that lists the families, so the table stays explicit.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/exec/kernel.h"
#include "npugap/exec/op_support.h"

namespace npugap::exec {

struct OpRow {
  std::string_view domain;  // "" for ai.onnx
  std::string_view op_type;
  int since_version;  // first opset this row handles
  int until_version;  // last opset this row handles (inclusive)
  KernelFn kernel;
  const SupportRule* support;  // how ATC deploys it on an Ascend NPU (op_support.h)
};

// Rows of each op family (one file each under src/exec/ops/).
std::span<const OpRow> ElementwiseOps();
std::span<const OpRow> ActivationOps();
std::span<const OpRow> TensorOps();
std::span<const OpRow> IndexingOps();
std::span<const OpRow> ReductionOps();
std::span<const OpRow> NormalizationOps();
std::span<const OpRow> NnOps();
std::span<const OpRow> QuantOps();
std::span<const OpRow> ControlFlowOps();
std::span<const OpRow> RecurrentOps();
std::span<const OpRow> LinalgOps();
std::span<const OpRow> SignalOps();
std::span<const OpRow> DetectionOps();
std::span<const OpRow> TextOps();
std::span<const OpRow> TrainingOps();

// A family built from two row lists (its own and a sub-family's from another file), in order.
std::vector<OpRow> JoinRows(std::span<const OpRow> first, std::span<const OpRow> second);

class OpTable {
 public:
  static const OpTable& Default();
  // The row for op_type in domain at this opset, or nullptr.
  const OpRow* Find(std::string_view domain, std::string_view op_type, int64_t opset) const;
  // True when some row has this op_type (in any opset) — to tell "unknown op" from "wrong opset".
  bool Knows(std::string_view domain, std::string_view op_type) const;
  const std::vector<OpRow>& rows() const { return rows_; }

 private:
  std::vector<OpRow> rows_;
};

// Highest ai.onnx opset npugap accepts (that of the linked libonnx) and the lowest.
constexpr int64_t kMinSupportedOpset = 1;
constexpr int64_t kMaxSupportedOpset = 17;

}  // namespace npugap::exec
