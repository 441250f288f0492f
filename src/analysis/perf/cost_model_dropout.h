// DropoutDoMask's hand-written kernel (cost_model_dropout.cc): its UB tile and its in-place loop.
#pragma once

#include <optional>
#include <string_view>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf::internal {

// DropoutDoMask's UB tile in elements of its data, as its static kernel sizes it
// (`_get_ub_max_elements`); nullopt for other kernels.
std::optional<double> DropoutDoMaskTileElements(const Kernel& kernel, std::string_view dtype,
                                                const target::Target& target);
// Whether a vector kernel runs each UB tile through one buffer in place: the tile's load, vector
// work and store follow one another and the next tile's load waits for the store (DropoutDoMask).
bool RunsTilesInPlace(const Kernel& kernel);

}  // namespace npugap::analysis::perf::internal
