// An elementwise kernel with an input broadcast along its outer axes (a bias row added to every
// row: [21128] + [2560, 21128], or [1, 128, 768] + [128, 128, 768]) reads that input's slice
// once per UB tile, not once per core (docs/perf.md, "Broadcast inputs"). Source: the 2019 TBE
// broadcast / elementwise schedule (te_schedule/elewise_schedule.py, `_calculate_compute_at`;
// public copy jizhuoran/caffe-huawei-atlas-convertor): the read buffer of a tensor whose reader
// broadcasts along a non-last axis is computed at the result's UB-tile loop (`res_ub_outer`)
// whenever the UB split axis is the block split axis or lies after the broadcast axes, so its
// DMA runs in every tile. The tile is the schedule's own (`_get_ub_tiling`): whole trailing axes
// while they fit `max_ub_count`, then the largest factor of the split axis that fits
// (`get_nearest_factor`). Assumed: max_ub_count is half the UB (double buffering) over the
// bytes per element of the full-size operands plus the broadcast inputs' tile-sized copies, and
// the re-read slices come from the L2 (the first tile read them), so they cost MTE2 time only.
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

// Elements of `op` if it is `big` broadcast along leading axes only: its trailing dims equal
// big's and every dim before them is 1 (or absent). 0 otherwise.
int64_t OuterBroadcastElements(const Operand& op, const Operand& big) {
  const auto& s = op.shape;
  const auto& b = big.shape;
  if (s.empty() || b.empty() || Elements(op) <= 1 || Elements(op) >= Elements(big)) return 0;
  size_t k = 0;
  while (k < s.size() && k < b.size() && s[s.size() - 1 - k] == b[b.size() - 1 - k]) ++k;
  if (k == 0) return 0;
  for (size_t i = 0; i + k < s.size(); ++i)
    if (s[i] != 1) return 0;
  return Elements(op);
}

// The largest factor of `n` that is at most `bound` (at least 1).
int64_t NearestFactor(int64_t n, int64_t bound) {
  for (int64_t f = std::min(n, std::max<int64_t>(bound, 1)); f > 1; --f)
    if (n % f == 0) return f;
  return 1;
}

// Elements of one UB tile of `big` as `_get_ub_tiling` cuts it for at most `max_count` elements.
double UbTile(const Operand& big, double max_count) {
  const auto& s = big.shape;
  double inner = 1;
  for (size_t i = s.size(); i-- > 0;) {
    const double d = static_cast<double>(s[i]);
    if (inner * d >= max_count) {
      const auto fit = static_cast<int64_t>(std::floor(max_count / inner));
      return inner * static_cast<double>(NearestFactor(s[i], fit));
    }
    inner *= d;
  }
  return inner;
}

}  // namespace

double BroadcastRereadTime(const Kernel& kernel, const Operand& big, const VectorOps& ops,
                           std::string_view dtype, double cores, const target::Target& target) {
  // Row-wise kernels keep whole rows and their own schedules; only plain elementwise ones here.
  if (ops.reduce > 0 || ops.broadcast > 0 || !target.buffers.ub || !target.datapath) return 0;
  const int64_t elements = Elements(big);
  std::vector<int64_t> slices;
  for (const Operand& op : kernel.inputs)
    if (const int64_t n = OuterBroadcastElements(op, big)) slices.push_back(n);
  if (slices.empty() || elements == 0) return 0;
  const double item = static_cast<double>(ItemSize(dtype));
  const double buffers = FullSizeOperands(kernel, elements) + static_cast<double>(slices.size());
  const double max_count = std::floor(static_cast<double>(target.buffers.ub->value) / 2 / (buffers * item));
  const double tile = UbTile(big, std::max(1.0, max_count));
  const double per_core = static_cast<double>(elements) / std::max(cores, 1.0);
  const double tiles = std::ceil(per_core / tile);
  double bytes = 0, instructions = 0;
  for (const int64_t n : slices) {
    // Each tile reads the part of the broadcast input its elements use; the once-per-core read of
    // the whole input is already in the kernel's bytes.
    const double slice = std::min({tile, per_core, static_cast<double>(n)});
    bytes += std::max(0.0, tiles * slice - static_cast<double>(n) / std::max(cores, 1.0)) * item;
    instructions += std::max(0.0, tiles - 1);
  }
  const double clock = target.compute.clock.value;
  const double head = target.kernel ? InstructionHead(target.kernel->dma_instruction_heads, "gm_to_ub") : 0.0;
  return bytes / (target.datapath->gm_to_ub.value * clock) + instructions * head / clock;
}

}  // namespace npugap::analysis::perf::internal
