// npugap.RoundToFormat, the precision emulator's rounding step (src/exec/ops/emulation.cc): the
// emulated runner (analysis/precision/emulate.h) inserts it into its copy of a model; it never
// appears in a user's model. Its rows join the op table in op_table.cc.
#pragma once

#include <span>
#include <string_view>

#include "npugap/exec/op_table.h"

namespace npugap::exec {

inline constexpr std::string_view kEmulationDomain = "npugap";
std::span<const OpRow> EmulationOps();

}  // namespace npugap::exec
