// Numpy-style (multidirectional) broadcasting, shared by every elementwise kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/tensor.h"

namespace npugap::exec {

// The broadcast shape of a and b, or an error naming both shapes.
Expected<ir::Shape> BroadcastShapes(const ir::Shape& a, const ir::Shape& b);

// Strides of `in` when read along `out` (0 on broadcast dims); `in` is right-aligned to `out`.
std::vector<int64_t> BroadcastStrides(const ir::Shape& in, const ir::Shape& out);

// Row-major contiguous strides of a shape.
std::vector<int64_t> ContiguousStrides(const ir::Shape& shape);

}  // namespace npugap::exec
