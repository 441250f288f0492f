// Seeded random inputs for a model: normal(0, 1) for floats, valid indices for integer inputs
// that feed a Gather (in [0, table rows)), small non-negative integers otherwise, bools at 50%.
#pragma once

#include <cstdint>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::exec {

// One tensor per graph input. Every input dim must be static (bound by --shape / --batch);
// the error names the input and the symbolic dim otherwise.
Expected<std::vector<ir::Tensor>> RandomInputs(const ir::Graph& graph, uint64_t seed);

}  // namespace npugap::exec
