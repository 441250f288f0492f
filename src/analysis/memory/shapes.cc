#include "npugap/analysis/memory/shapes.h"

#include <fmt/format.h>

#include <limits>

namespace npugap::analysis::memory {

Expected<ShapeMap> StaticShapes(const ir::Graph& graph) {
  ShapeMap shapes(graph.values.size());
  for (size_t i = 0; i < graph.values.size(); ++i) {
    const ir::Value& v = graph.values[i];
    if (!v.type.is_tensor) continue;
    if (const ir::Tensor* t = graph.Initializer(static_cast<int>(i))) {
      shapes[i] = t->shape();
      continue;
    }
    auto shape = v.type.StaticShape();
    if (!shape) {
      // Only values some node or the graph actually uses need a size.
      if (v.producer < 0 && v.consumers.empty() && !v.is_graph_output) continue;
      return Status::InvalidArgument(fmt::format(
          "value '{}' has shape {} after binding: its size is unknown (bind it with --batch or --shape)",
          v.name, v.type.ToString()));
    }
    shapes[i] = std::move(*shape);
  }
  return shapes;
}

Expected<BatchScaling> BatchScaling::Derive(const ShapeMap& a, int64_t batch_a, const ShapeMap& b,
                                            int64_t batch_b) {
  if (batch_a <= 0 || batch_b <= 0 || batch_a == batch_b) {
    return Status::InvalidArgument(
        fmt::format("batch scaling needs two different positive batches, got {} and {}", batch_a, batch_b));
  }
  if (a.size() != b.size())
    return Status::InvalidArgument("batch scaling: the two models differ in their values");
  BatchScaling s;
  s.rules_.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i] || !b[i]) continue;
    if (a[i]->size() != b[i]->size()) {
      return Status::InvalidArgument(fmt::format("value #{}: rank changes with the batch", i));
    }
    std::vector<DimRule> rules;
    for (size_t d = 0; d < a[i]->size(); ++d) {
      const int64_t da = (*a[i])[d], db = (*b[i])[d];
      if (da == db) {
        rules.push_back({da, false});
      } else if (da % batch_a == 0 && db % batch_b == 0 && da / batch_a == db / batch_b) {
        rules.push_back({da / batch_a, true});
        s.depends_on_batch_ = true;
      } else {
        return Status::Unsupported(fmt::format(
            "value #{} dim {} is {} at batch {} and {} at batch {}: not proportional to the batch", i, d, da,
            batch_a, db, batch_b));
      }
    }
    s.rules_[i] = std::move(rules);
  }
  return s;
}

Expected<ShapeMap> BatchScaling::At(int64_t batch) const {
  if (batch <= 0) return Status::InvalidArgument(fmt::format("batch {}: must be positive", batch));
  ShapeMap shapes(rules_.size());
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (!rules_[i]) continue;
    ir::Shape shape;
    shape.reserve(rules_[i]->size());
    for (const DimRule& r : *rules_[i]) {
      if (r.scaled && r.value > std::numeric_limits<int64_t>::max() / batch) {
        return Status::InvalidArgument(fmt::format("batch {}: a dim overflows int64", batch));
      }
      shape.push_back(r.scaled ? r.value * batch : r.value);
    }
    shapes[i] = std::move(shape);
  }
  return shapes;
}

}  // namespace npugap::analysis::memory
