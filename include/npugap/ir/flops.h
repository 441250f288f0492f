// Floating-point operation counts per node from static shapes. Conv, ConvTranspose, Gemm and
// MatMul count 2 FLOPs per multiply-accumulate; other ops count one per output element (a
// lower bound; reductions count their input elements). The performance model refines this.
#pragma once

#include <cstdint>
#include <optional>

#include "npugap/ir/graph.h"

namespace npugap::ir {

// nullopt when a shape the count needs is not static.
std::optional<int64_t> NodeFlops(const Graph& graph, const Node& node);

// Multiply-accumulates of Conv / ConvTranspose / Gemm / MatMul; 0 for other ops.
std::optional<int64_t> NodeMacs(const Graph& graph, const Node& node);

}  // namespace npugap::ir
