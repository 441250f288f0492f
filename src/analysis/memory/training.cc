#include "npugap/analysis/memory/training.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "npugap/analysis/memory/backward_rules.h"
#include "npugap/analysis/memory/layout.h"
#include "npugap/analysis/memory/lifetimes.h"
#include "npugap/analysis/memory/planner.h"

namespace npugap::analysis::memory {
namespace {

// Half-precision bytes per element under AMP (fp16, 2 B).
constexpr int64_t kHalfBytes = 2;
// FP32 for master weights, master gradients and optimizer states.
constexpr int64_t kFp32Bytes = 4;
const std::set<std::string> kO1HalfOps = {"Conv", "ConvTranspose", "MatMul", "Gemm"};

int64_t Numel(const ir::Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

bool Trainable(const ir::Graph& g, int v) {
  const ir::Value& val = g.values[static_cast<size_t>(v)];
  if (!val.is_initializer || !ir::IsFloatingPoint(val.type.dtype)) return false;
  // BatchNorm's running mean and variance are buffers, not parameters.
  for (int c : val.consumers) {
    const ir::Node& n = g.nodes[static_cast<size_t>(c)];
    if (n.op_type == "BatchNormalization" && n.inputs.size() > 4 && (n.inputs[3] == v || n.inputs[4] == v))
      return false;
  }
  return true;
}

}  // namespace

Expected<Optimizer> ParseOptimizer(const std::string& text) {
  if (text == "sgd") return Optimizer::kSgd;
  if (text == "momentum") return Optimizer::kMomentum;
  if (text == "adam") return Optimizer::kAdam;
  if (text == "adamw") return Optimizer::kAdamW;
  return Status::InvalidArgument(fmt::format("--optimizer '{}': unknown (sgd, momentum, adam, adamw)", text));
}

Expected<Amp> ParseAmp(const std::string& text) {
  if (text == "none") return Amp::kNone;
  if (text == "O1") return Amp::kO1;
  if (text == "O2") return Amp::kO2;
  return Status::InvalidArgument(fmt::format("--amp '{}': unknown (none, O1, O2)", text));
}

int OptimizerStatesPerParam(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 0;
    case Optimizer::kMomentum:
      return 1;
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      return 2;
  }
  return 0;
}

Expected<TrainingReport> PlanTraining(const ir::Graph& g, const ShapeMap& shapes,
                                      const target::Target& target, const TrainingOptions& options) {
  if (options.dp_ranks < 1) {
    return Status::InvalidArgument(fmt::format("--dp-ranks {}: must be >= 1", options.dp_ranks));
  }
  TrainingReport r;
  const bool o2 = options.amp == Amp::kO2;
  // Model states, per tensor through the allocator's rounding (each is its own torch tensor).
  for (const auto& [v, tensor] : g.initializers) {
    const int64_t numel = tensor.numel();
    const bool half = o2 && ir::IsFloatingPoint(tensor.dtype());
    const int64_t elem = half ? kHalfBytes : static_cast<int64_t>(ir::DTypeSize(tensor.dtype()));
    r.weights_bytes += AllocBytes(numel * elem, target);
    if (!Trainable(g, v)) continue;
    r.parameters += numel;
    r.gradients_bytes += AllocBytes(numel * elem, target);
    // O2 keeps FP32 master weights and their FP32 gradients (DeepSpeed's 2P + 18P split, anchors §2.6).
    if (o2) {
      r.master_weights_bytes += AllocBytes(numel * kFp32Bytes, target);
      r.gradients_bytes += AllocBytes(numel * kFp32Bytes, target);
    }
    r.optimizer_bytes += OptimizerStatesPerParam(options.optimizer) * AllocBytes(numel * kFp32Bytes, target);
  }

  // Activation bytes of a value: its dtype, or fp16 under O2 (all float) / O1 (cube ops' tensors).
  std::vector<bool> o1_half(g.values.size(), false);
  if (options.amp == Amp::kO1) {
    for (const ir::Node& n : g.nodes) {
      if (!kO1HalfOps.count(n.op_type)) continue;
      for (int v : n.inputs)
        if (v != ir::kNoValue) o1_half[static_cast<size_t>(v)] = true;
      for (int v : n.outputs)
        if (v != ir::kNoValue) o1_half[static_cast<size_t>(v)] = true;
    }
  }
  auto act_bytes = [&](int v, int64_t element_bytes) -> int64_t {
    const auto& shape = shapes[static_cast<size_t>(v)];
    if (!shape) return 0;
    const ir::DType dt = g.values[static_cast<size_t>(v)].type.dtype;
    int64_t elem = element_bytes > 0 ? element_bytes : static_cast<int64_t>(ir::DTypeSize(dt));
    if (element_bytes == 0 && ir::IsFloatingPoint(dt) && (o2 || o1_half[static_cast<size_t>(v)]))
      elem = kHalfBytes;
    return AllocBytes(Numel(*shape) * elem, target);
  };

  // Kept for backward: each (storage, kind) once, however many ops (or views of it) save it.
  std::set<std::pair<int, int64_t>> kept;
  std::vector<bool> saved(g.values.size(), false);
  for (const ir::Node& n : g.nodes) {
    for (SavedTensor s : SavedForBackward(g, n)) {
      if (s.element_bytes == 0) s.value = StorageOf(g, s.value);
      if (!kept.insert({s.value, s.element_bytes}).second) continue;
      const int64_t b = act_bytes(s.value, s.element_bytes);
      r.activations_bytes += b;
      if (s.element_bytes == 0) saved[static_cast<size_t>(s.value)] = true;
      const auto& shape = shapes[static_cast<size_t>(s.value)];
      if (s.per_channel_stats && shape && shape->size() > 1) {
        // mean and inverse std, FP32, one per channel (dim 1).
        r.activations_bytes += 2 * AllocBytes((*shape)[1] * kFp32Bytes, target);
      }
      if (b > r.largest_saved_bytes) {
        r.largest_saved_bytes = b;
        r.largest_saved = g.values[static_cast<size_t>(s.value)].name;
      }
    }
  }

  // Forward transient: storages not kept, live from producer to the last reader of any view.
  std::vector<int> first(g.values.size(), -1), last(g.values.size(), -1);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ir::Value& val = g.values[v];
    if (!IsActivation(g, static_cast<int>(v)) || !shapes[v] || (val.producer < 0 && !val.is_graph_input))
      continue;
    const size_t root = static_cast<size_t>(StorageOf(g, static_cast<int>(v)));
    if (root == v) first[v] = std::max(val.producer, 0);
    for (int c : val.consumers) last[root] = std::max(last[root], c);
    if (val.is_graph_output) last[root] = static_cast<int>(g.nodes.size());
  }
  std::vector<TensorUse> transient;
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (first[v] < 0 || saved[v]) continue;
    transient.push_back(
        {static_cast<int>(v), act_bytes(static_cast<int>(v), 0), first[v], std::max(first[v], last[v])});
  }
  const int64_t forward_peak = LowerBound(transient);
  // Backward of one op: the gradients of its outputs and of its activation inputs at once. Graph
  // inputs (the data) need no gradient.
  int64_t backward_peak = 0;
  auto needs_grad = [&](int v) {
    if (v == ir::kNoValue) return false;
    const ir::Value& val = g.values[static_cast<size_t>(v)];
    return IsActivation(g, v) && !val.is_graph_input && ir::IsFloatingPoint(val.type.dtype) &&
           shapes[static_cast<size_t>(v)];
  };
  for (const ir::Node& n : g.nodes) {
    if (IsViewOp(n)) continue;  // the gradient of a view is a view of its output's gradient
    int64_t live = 0;
    for (int v : n.outputs)
      if (needs_grad(v)) live += act_bytes(v, 0);
    for (int v : n.inputs)
      if (needs_grad(v)) live += act_bytes(v, 0);
    backward_peak = std::max(backward_peak, live);
  }
  r.transient_bytes = std::max(forward_peak, backward_peak);
  if (options.dp_ranks > 1 && target.framework.comm_buffer) {
    // One data-parallel communicator: 2 x HCCL_BUFFSIZE (ascend-facts §4.3, anchors §2.3).
    r.hccl_bytes = 2 * target.framework.comm_buffer->value;
  }
  r.total_bytes = r.weights_bytes + r.gradients_bytes + r.master_weights_bytes + r.optimizer_bytes +
                  r.activations_bytes + r.transient_bytes + r.hccl_bytes;
  return r;
}

}  // namespace npugap::analysis::memory
