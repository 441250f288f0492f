// Static shapes per value, and how they change with the batch. The memory analyses read shapes
// from a ShapeMap rather than from the IR so that the largest-batch search can re-evaluate a model
// at many batches without importing it again.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::analysis::memory {

// Indexed like Graph::values; nullopt for values that are not tensors (sequences, optionals).
using ShapeMap = std::vector<std::optional<ir::Shape>>;

// The IR's shapes after --batch / --shape binding. A tensor value whose shape is still symbolic
// (or unknown) is an error naming it, because no byte count can be given for it.
Expected<ShapeMap> StaticShapes(const ir::Graph& graph);

// Each dim of each value as a function of the batch: constant, or `factor * batch`. Derived by
// comparing the same graph imported at two batches, so it holds for every model whose dims are
// either fixed or proportional to the batch (CNNs, ViT, BERT at a fixed sequence length).
class BatchScaling {
 public:
  // `a` at batch `batch_a` and `b` at batch `batch_b` (different) must have the same values.
  // Errors name the value and dim that is neither constant nor proportional to the batch.
  static Expected<BatchScaling> Derive(const ShapeMap& a, int64_t batch_a, const ShapeMap& b,
                                       int64_t batch_b);

  // The shapes at `batch` (> 0); errors when a dim would overflow int64.
  Expected<ShapeMap> At(int64_t batch) const;
  // False when no dim depends on the batch (a model exported with a fixed batch).
  bool depends_on_batch() const { return depends_on_batch_; }

 private:
  struct DimRule {
    int64_t value = 0;  // constant, or the factor when `scaled`
    bool scaled = false;
  };
  std::vector<std::optional<std::vector<DimRule>>> rules_;
  bool depends_on_batch_ = false;
};

}  // namespace npugap::analysis::memory
