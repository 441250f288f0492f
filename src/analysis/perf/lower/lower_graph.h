// Dataflow over a list of device ops (who produces and who reads each value id), shared by the
// lowering passes. Rebuilt after every pass that changes the list.
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "npugap/analysis/perf/lower/lower.h"

namespace npugap::analysis::perf::internal {

struct OpGraph {
  std::unordered_map<int, int> producer;                // value id -> op index
  std::unordered_map<int, std::vector<int>> consumers;  // value id -> op indices, in order

  explicit OpGraph(const std::vector<DeviceOp>& ops);
  int Producer(int value) const;  // -1 when no op makes it (graph input, weight)
  const std::vector<int>& Consumers(int value) const;
};

// A value id no op of `ops` uses yet, counting down from the smallest one in use.
int NextFreeId(const std::vector<DeviceOp>& ops);

// A conversion kernel (Cast, TransData) inserted before `op`, in its phase, that turns `in` into
// `out`; `out` becomes a new value (next_id, counted down) that is no weight.
DeviceOp ConversionOp(const DeviceOp& op, std::string_view op_type, std::string_view name_suffix, OpTensor in,
                      OpTensor out, int& next_id);

bool IsElementwise(const std::string& op_type);
bool IsActivation(const std::string& op_type);
int64_t Numel(const ir::Shape& shape);
int64_t Bytes(const OpTensor& t);

}  // namespace npugap::analysis::perf::internal
