// Elementwise op family. (Rows added as the family's kernels land.)
#include "npugap/exec/op_table.h"

namespace npugap::exec {

std::span<const OpRow> ElementwiseOps() { return {}; }

}  // namespace npugap::exec
