// How fast load3d (the img2col of a convolution's feature map, L1 -> L0A / L0B) fills the L0
// buffers. CANN's cube cache-tiling code (optiling::cachetiling, CubeUtil::GetLoad3dThroughput,
// used by its convolution cycle calculators) gives the throughput as a table on a 512 B/cycle
// port:
//   stride 1:        L0A 512 / (n + 2),           L0B 512 / (n + 4)
//   stride 2, 4, 8:  L0A 512 / (2 stride + n),    L0B 512 / (2 stride + n + 2)
//   other strides:   L0A 32,                      L0B 512 / 18
// with n the row switches of one instruction; the backprop-filter calculator counts them per
// 16-pixel fractal as 16 / W (15 / W when W divides 16). The 512 is the 910's load2d L1 -> L0A
// rate (the GEMM cycle model's "value for 1980"), taken from the profile's datapath.l1_to_l0a.
// The table sits in code shared by the newer chips; that it holds for the 910 is assumed.
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

double Load3dRate(double l1_to_l0a, bool to_l0b, int stride_w, int row_switches) {
  const double n = std::max(0, row_switches);
  const double l0b = to_l0b ? 2 : 0;
  if (stride_w == 1) return l1_to_l0a / (n + 2 + l0b);
  if (stride_w == 2 || stride_w == 4 || stride_w == 8) return l1_to_l0a / (2.0 * stride_w + n + l0b);
  return to_l0b ? l1_to_l0a / 18 : l1_to_l0a / 16;  // the table's 32 and 512 / 18 B/cycle
}

int Load3dRowSwitches(int64_t width) {
  if (width <= 0) return 0;
  return static_cast<int>(16 % width == 0 ? 15 / width : 16 / width);
}

}  // namespace npugap::analysis::perf::internal
