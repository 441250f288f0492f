#include "npugap/exec/broadcast.h"

#include <algorithm>

#include <fmt/format.h>

namespace npugap::exec {

Expected<ir::Shape> BroadcastShapes(const ir::Shape& a, const ir::Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  ir::Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return Status::InvalidArgument(
          fmt::format("shapes {} and {} do not broadcast", ir::ShapeToString(a), ir::ShapeToString(b)));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> BroadcastStrides(const ir::Shape& in, const ir::Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t i = in.size() - 1 - k;
    const size_t o = out.size() - 1 - k;
    strides[o] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return strides;
}

std::vector<int64_t> ContiguousStrides(const ir::Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

}  // namespace npugap::exec
