// npugap.RoundToFormat, the precision emulator's rounding step (src/exec/ops/emulation.cc): the
// emulated runner (analysis/precision/emulate.h) inserts it into its copy of a model; it never
// appears in a user's model. Its rows join the op table in op_table.cc.
#pragma once

#include <span>
#include <string_view>

#include "npugap/exec/op_table.h"

namespace npugap::exec {

inline constexpr std::string_view kEmulationDomain = "npugap";

// Set by the emulator on a node whose kernel keeps its partial sums in a narrower format (the
// plan's NodeNumerics::compute): value = numerics::Format | numerics::Overflow << 8. ReduceSum,
// ReduceMean and GlobalAveragePool read it and then sum sequentially, rounding after every add;
// every other kernel ignores it.
inline constexpr const char* kAccumulateFormatAttr = "_npugap_accumulate_format";
// Set by the emulator on a cube node (Conv, FusedConv, ConvTranspose, MatMul, Gemm) when the plan
// turns the finite-accumulator model on: value = fraction bits N. The node's float32 path then
// accumulates through numerics::CubeAccumulator (numerics/cube_accumulator.h) in plain loops.
inline constexpr const char* kCubeAccumulatorAttr = "_npugap_cube_accumulator_bits";
std::span<const OpRow> EmulationOps();

}  // namespace npugap::exec
