// The largest batch whose memory fits the device: doubling, then bisection, over a predicate that
// re-evaluates the model's memory at a batch (shapes from BatchScaling).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "npugap/analysis/memory/inference.h"
#include "npugap/analysis/memory/shapes.h"
#include "npugap/analysis/memory/training.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::memory {

// Bytes available to the model: device memory minus the profile's reserve.
struct Budget {
  int64_t device_bytes = 0;
  int64_t reserve_bytes = 0;
  int64_t available() const { return device_bytes - reserve_bytes; }
};

// Upper bound of the batch search: no batch needs less than its inputs, so the budget over the
// graph inputs' bytes per sample (at `shapes`, analysed at `batch`; at least 1).
int64_t BatchSearchLimit(const ir::Graph& graph, const ShapeMap& shapes, int64_t batch, const Budget& budget);

// Largest b in [1, limit] with fits(b), assuming fits is monotone (more batch never needs less
// memory). 0 when batch 1 does not fit; `limit` when even that fits. Errors from `fits` propagate.
Expected<int64_t> LargestFittingBatch(const std::function<Expected<bool>(int64_t)>& fits, int64_t limit);

// The model's shapes at a batch (BatchScaling::At, or the analysed shapes at the analysed batch).
using ShapesAtBatch = std::function<Expected<ShapeMap>(int64_t)>;

// Which plan must fit: the inference plan, or the training plan when `training` is set.
struct FitPlan {
  InferenceOptions inference;
  std::optional<TrainingOptions> training;
};

// The predicate for LargestFittingBatch: the plan's total bytes at batch b <= budget.available().
// `graph` and `target` are held by reference and must outlive the predicate; errors from
// `shapes_at` and the planners propagate.
std::function<Expected<bool>(int64_t)> FitsAtBatch(const ir::Graph& graph, ShapesAtBatch shapes_at,
                                                   const target::Target& target, FitPlan plan, Budget budget);

}  // namespace npugap::analysis::memory
