#include "lower_graph.h"

#include <algorithm>
#include <string_view>

namespace npugap::analysis::perf::internal {

OpGraph::OpGraph(const std::vector<DeviceOp>& ops) {
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const OpTensor& t : ops[i].outputs) producer[t.value] = static_cast<int>(i);
    for (const OpTensor& t : ops[i].inputs) {
      auto& c = consumers[t.value];
      if (c.empty() || c.back() != static_cast<int>(i)) c.push_back(static_cast<int>(i));
    }
  }
}

int OpGraph::Producer(int value) const {
  auto it = producer.find(value);
  return it == producer.end() ? -1 : it->second;
}

const std::vector<int>& OpGraph::Consumers(int value) const {
  static const std::vector<int> kNone;
  auto it = consumers.find(value);
  return it == consumers.end() ? kNone : it->second;
}

int NextFreeId(const std::vector<DeviceOp>& ops) {
  int lowest = 0;
  for (const DeviceOp& op : ops) {
    for (const OpTensor& t : op.inputs) lowest = std::min(lowest, t.value);
    for (const OpTensor& t : op.outputs) lowest = std::min(lowest, t.value);
  }
  return lowest - 1;
}

DeviceOp ConversionOp(const DeviceOp& op, std::string_view op_type, std::string_view name_suffix, OpTensor in,
                      OpTensor out, int& next_id) {
  DeviceOp conversion;
  conversion.op_type = op_type;
  conversion.name = op.name;
  conversion.name += name_suffix;
  conversion.category = Category::kTransDataCast;
  conversion.phase = op.phase;
  out.value = next_id--;
  out.weight = false;
  conversion.inputs = {std::move(in)};
  conversion.outputs = {std::move(out)};
  return conversion;
}

namespace {
constexpr std::string_view kElementwise[] = {
    "Add",  "Sub",      "Mul",   "RealDiv", "Pow",       "Sqrt",        "Reciprocal", "Exp",
    "Log",  "Neg",      "Abs",   "Maximum", "Minimum",   "Select",      "Relu",       "ReluV2",
    "GeLU", "Sigmoid",  "Tanh",  "Erf",     "LeakyRelu", "ClipByValue", "HardSwish",  "HardSigmoid",
    "Elu",  "Softplus", "Equal", "Less",    "Greater",   "LogicalNot"};
constexpr std::string_view kActivations[] = {"Relu",        "ReluV2",    "GeLU",        "Sigmoid",
                                             "Tanh",        "LeakyRelu", "ClipByValue", "HardSwish",
                                             "HardSigmoid", "Elu",       "Softplus"};
}  // namespace

bool IsElementwise(const std::string& op_type) {
  return std::find(std::begin(kElementwise), std::end(kElementwise), op_type) != std::end(kElementwise);
}
bool IsActivation(const std::string& op_type) {
  return std::find(std::begin(kActivations), std::end(kActivations), op_type) != std::end(kActivations);
}

int64_t Numel(const ir::Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= std::max<int64_t>(d, 0);
  return n;
}

int64_t Bytes(const OpTensor& t) { return Numel(t.shape) * static_cast<int64_t>(ir::DTypeSize(t.dtype)); }

}  // namespace npugap::analysis::perf::internal
