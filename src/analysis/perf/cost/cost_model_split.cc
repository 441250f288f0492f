// How a vector kernel's work is split over its block_dim blocks (docs/perf.md, "Block split").
// TBE's schedules bind an outer loop to the blocks and split it in whole units, so the busiest
// block gets ceil(units / blocks) of them and the kernel ends with it:
//   - row-wise kernels (a reduction along the last axis broadcast back over the row) keep whole
//     rows in a block, since a row's reduction has to finish where its broadcast runs;
//   - everything else is split as one flat axis in whole 32 B blocks (a DMA moves whole 32 B
//     blocks). This is assumed: the records' block_dim (30 for an elementwise [32, 3, 224, 224])
//     rules out the 2019 vector_schedule.py rule (32 // 30 = 1 image a block, 32 blocks) and a
//     factor-2 cut of N (16 blocks), but not a cut of N into nparts = 30 (16 busy blocks).
// A block_dim above the core count runs in waves: the busiest core runs ceil(blocks / cores)
// busiest blocks. bn_update_grad's cut of C1 or N into `split(nparts=CORE_NUM)` parts, which
// leaves 14 of 30 blocks idle on N = 32, is modelled (BnUpdateGradBusiest), and so is
// bn_training_reduce_grad's fallback to the elementwise schedule's nparts cut of N
// (BnReduceGradBusiest), which has the same effect; bn_update's
// (bn_update_schedule.py) is not: with it the update family is 1.6-2x over its records
// (docs/fidelity.md, session 13 perfsplit, session 14 perfbnvec). The cube's split is its own
// (cost_model_cube_time.cc).
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {
double CeilDiv(double a, double b) { return std::ceil(a / std::max(b, 1.0)); }

// TBE's generic elementwise schedule (elewise_schedule_new.py `_calculate_tiling` with
// vector_schedule.py `_get_block_tiling` / `_find_split_axis` / `_do_tiling`; public copy
// jizhuoran/caffe-huawei-atlas-convertor @ff9768e) cuts the first axis whose running product
// reaches block_dim; when that is axis 0 (d0 >= block_dim) it uses `split(nparts=block_dim)`, so
// the busy blocks take ceil(d0 / block_dim) whole slices of axis 0 and the rest are guarded out.
// Returns the busiest block's elements, or 0 where a later axis is cut (not modelled: the flat split).
double ElementwiseAxis0Busiest(const Operand& big, double blocks) {
  if (big.shape.empty()) return 0;
  const double d0 = static_cast<double>(big.shape[0]);
  if (d0 < blocks) return 0;
  return CeilDiv(d0, blocks) * static_cast<double>(Elements(big)) / d0;
}

// bn_update_grad's schedule (te_schedule/bn_update_grad_shedule.py, 2019 TBE, public copy
// jizhuoran/caffe-huawei-atlas-convertor @ff9768e, `bn_update_grad_schedule`) binds one of its
// per-channel sums' axes to the blocks with `split(nparts=CORE_NUM)`, so block_dim is CORE_NUM and
// the busy blocks take ceil(extent / CORE_NUM) whole units each (the others are guarded out):
//   - C1 >= CORE_NUM: `schedule_cut_c1`, whole (c1) slices of every image;
//   - else, unless H or W divides by CORE_NUM (its `schedule_cut_h_or_w_twice`, not modelled),
//     N >= CORE_NUM: `schedule_cut_batch`, whole images. Its ResNet-50 special case for
//     32 x 16 x 14 x 14 cuts N by 2 and C1 by 8 (32 blocks), an even split, as this rule gives at
//     block_dim 32.
// Returns the busiest block's elements, or 0 where another split applies (the flat one below).
double BnUpdateGradBusiest(const Kernel& kernel, const Operand& big, double blocks) {
  const auto& s = big.shape;
  if (kernel.op_type != "BNTrainingUpdateGrad" || big.format != "NC1HWC0" || s.size() != 5) return 0;
  const double n = static_cast<double>(s[0]), c1 = static_cast<double>(s[1]);
  const double plane = static_cast<double>(s[2] * s[3] * s[4]);
  if (c1 >= blocks) return CeilDiv(c1, blocks) * n * plane;
  const auto divides = [&](int64_t d) { return std::fmod(static_cast<double>(d), blocks) == 0; };
  if (n >= blocks && !divides(s[2]) && !divides(s[3])) return CeilDiv(n, blocks) * c1 * plane;
  return 0;
}

// bn_training_reduce_grad's schedule (te_schedule/bn_grad_reduce_schedule.py, same copy,
// `BnGradReduceSchedule.do_schedule`) keeps its own "model parallel" cut only for C1 a multiple
// of CORE_NUM (an even cut of C1) or 32 x 16 x 14/15 x 14/15 (N by 4 x C1 by 4, 32 blocks, even);
// everything else goes to the elementwise schedule's cut of axis 0 (ElementwiseAxis0Busiest):
// whole images (32 images on 30 blocks: 16 blocks of 2 images, 1.875x an even split).
// Returns the busiest block's elements, or 0 where the cut is even or another axis is cut (flat).
double BnReduceGradBusiest(const Kernel& kernel, const Operand& big, double blocks) {
  const auto& s = big.shape;
  if (kernel.op_type != "BNTrainingReduceGrad" || big.format != "NC1HWC0" || s.size() != 5) return 0;
  const double c1 = static_cast<double>(s[1]);
  if (c1 >= blocks && std::fmod(c1, blocks) == 0) return 0;  // model parallel: whole c1, even
  return ElementwiseAxis0Busiest(big, blocks);
}

// LAMB's two update kernels run TBE's elementwise schedule (lamb_apply_optimizer_assign: three
// outputs, elewise_multi_schedule.py's ElewiseMultiSchedule, a subclass of elewise_schedule_new.py's
// ElewiseSchedule, same copy; lamb_apply_weight_assign: one output, ElewiseSchedule), whose block
// tiling cuts axis 0 into whole slices (ElementwiseAxis0Busiest).
double LambUpdateBusiest(const Kernel& kernel, const Operand& big, double blocks) {
  if ((kernel.op_type != "LambApplyOptimizerAssign" && kernel.op_type != "LambApplyWeightAssign") ||
      big.format != "ND")
    return 0;
  return ElementwiseAxis0Busiest(big, blocks);
}
}  // namespace

double SplitCores(const Kernel& kernel, const Operand& big, const VectorOps& ops, std::string_view dtype,
                  double cores, int64_t ub_block) {
  const double elements = static_cast<double>(Elements(big));
  if (elements <= 0 || cores <= 1) return cores;
  // A folded block_dim (more blocks than cores) is split into blocks first; each core then runs
  // its waves: the busiest core's share is its waves x the busiest block's.
  const double blocks = kernel.block_dim > 0 ? static_cast<double>(kernel.block_dim) : cores;
  const double waves = std::ceil(blocks / cores - 1e-9);
  double busiest = 0;
  if (ops.reduce > 0 && ops.broadcast > 0 && !big.shape.empty()) {
    const double row = RowLength(big);  // whole rows per block
    busiest = CeilDiv(elements / std::max(row, 1.0), blocks) * row;
  }
  if (busiest == 0) busiest = BnUpdateGradBusiest(kernel, big, blocks);
  if (busiest == 0) busiest = BnReduceGradBusiest(kernel, big, blocks);
  if (busiest == 0) busiest = LambUpdateBusiest(kernel, big, blocks);
  if (busiest == 0) {
    const double align = std::max(1.0, static_cast<double>(ub_block) / static_cast<double>(ItemSize(dtype)));
    busiest = CeilDiv(CeilDiv(elements, blocks), align) * align;
  }
  busiest = std::min(busiest * waves, elements);
  return std::min(cores, elements / busiest);
}

}  // namespace npugap::analysis::perf::internal
