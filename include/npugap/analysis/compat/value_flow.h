// Which values of a graph are known before the model runs, and which compute shapes: the walk
// behind the dynamic-shape findings. (--write-static folds with the import's pass, which the check
// runs first, so a known shape chain left for a finding is one that pass did not fold.)
#pragma once

#include <cstdint>
#include <vector>

#include "npugap/ir/graph.h"

namespace npugap::compat {

struct ValueFlow {
  // known[v]: computable without the graph inputs' data — initializers, Constant outputs,
  // Shape/Size of a value whose dims are all static, and ops whose inputs are all known.
  std::vector<uint8_t> known;
  // shape_comp[v]: computed from shapes (Shape/Size, then ops over shapes and constants only),
  // i.e. part of a Shape -> Gather -> Concat -> Reshape chain, whether known or not.
  std::vector<uint8_t> shape_comp;
  // foldable[n]: node n has all outputs known (it can be replaced by initializers).
  std::vector<uint8_t> foldable;
};

// One pass in topological order; O(nodes + edges). Nodes with subgraphs are never folded.
ValueFlow AnalyzeValueFlow(const ir::Graph& graph);

// True for a value that is known before running (initializer, constant or folded).
inline bool IsKnown(const ValueFlow& flow, int value) {
  return value >= 0 && static_cast<size_t>(value) < flow.known.size() &&
         flow.known[static_cast<size_t>(value)];
}

}  // namespace npugap::compat
