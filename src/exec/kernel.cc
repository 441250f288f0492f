#include "npugap/exec/kernel.h"

#include <fmt/format.h>

namespace npugap::exec {

Status KernelContext::Error(const std::string& what) const {
  return Status::InvalidArgument(fmt::format("node '{}' ({}): {}", node.name, node.op_type, what));
}

Status KernelContext::UnsupportedDType(DType t) const {
  return Status::Unsupported(
      fmt::format("node '{}' ({}): element type {} not implemented", node.name, node.op_type, ir::DTypeName(t)));
}

}  // namespace npugap::exec
