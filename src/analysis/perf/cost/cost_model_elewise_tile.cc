// The UB tile of LambApplyOptimizerAssign, as TBE's static elementwise multi-output schedule sizes
// and cuts it (2019 TBE, public copy jizhuoran/caffe-huawei-atlas-convertor @ff9768e,
// te/lang/cce/te_schedule/elewise_schedule_new.py, `ElewiseSchedule`, which `ElewiseMultiSchedule`
// in elewise_multi_schedule.py inherits it from):
//   - size: `_get_max_ub_count` takes UB_SIZE / 2 (float16 units), halves it for the double buffer
//     and divides by the total width `_get_total_width` x 128, rounded down to 128 elements. The
//     width is a liveness walk (a pre-order walk from the last output, each node's not yet seen
//     sources added, the node itself dropped; float32 = 2 units whatever the shape) over the
//     compute graph. lamb_apply_optimizer_assign's graph (impl/lamb_apply_optimizer_assign.py,
//     its 2020 static copy: the 8 scalar broadcasts, next_v, next_m, the two bias corrections as
//     exp(steps ln beta), the update, under ElewiseMultiSchedule's fake node over update,
//     next_v_gm and next_m_gm) walked so peaks at 6 float32 tensors (next_v_gm, update, mul_1,
//     mul_0, the one_minus_beta_1 broadcast, grad): width 12, a tile of at most 5,376 elements
//     (float16: width 6, 10,752).
//   - cut: `_get_ub_tiling` walks the axes from the last one, multiplying their sizes, and splits
//     the first axis at which the product reaches that count, into i slices of the axes inside it,
//     i the largest with i x inner <= count (when not equal, `get_nearest_factor`: the largest
//     divisor of the axis below i, if within a factor 2). A tile is whole rows: 7 rows of 768, but
//     one row of 3,072 (two would be 6,144).
//   - double buffer: `_need_double_buffer` is true whenever a core runs more than one UB loop (and
//     the nparts block cut passes the block count for the loop count, so it is true on every
//     multi-block record), and vector_schedule.py `_do_double_buffer` doubles only the cache_read
//     buffers (the inputs). The count above budgets every live tensor as doubled, but the
//     allocation holds two tiles of each full-size input for the whole loop beside one tile of
//     each result live at once. In the schedule's stage order (TVM's post-DFS from the fake node:
//     the weight-decay product, the m chain, bias correction 1, then the v chain and bias
//     correction 2; next_v and next_m live until their GM copies at the end), 6 full-size results
//     are live at the peak even with every elementwise result written over a dying operand
//     (dw_decay, next_m, next_m_unbiased, the beta_2 `vector_dup`, mul_2 and the square of grad,
//     which mul_3 then overwrites). 4 doubled inputs + 6 = 14 tiles; the UB holds 12.2 of 5,376 float32
//     elements. Nothing in the 2019 path re-tiles it (`cce_build_code` builds once, no retry), and
//     an allocation beyond the UB is a build error ("Allocation exceed bound of memory tag", which
//     later TBE ops catch to re-tile), so the records' build shared the second input set with the
//     results: te/tvm/build_module.py `lower_cce` runs InjectDoubleBuffer, then StorageRewriteCCE,
//     then InjectSync, and its `double_buffer_non_reuse` defaults to False (the later schedules
//     set it True beside every double_buffer() call; LAMB's build does not), i.e. other tensors
//     may reuse the double buffers (what the closed StorageRewriteCCE does with it: assumed).
//     A tile whose load lands in memory the previous tile's results still hold waits for that
//     tile's vector work: load and vector work in series (the store beside the next load). With
//     one row of 3,072 a tile (172 KB) and in float16 (12 rows of 768, 258 KB) they fit: those keep
//     the overlap.
// The walk is of this one graph, so the rule is for this kernel only.
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

// util.get_nearest_factor: the largest divisor of `dim` not above `split`, used when `split` is
// less than twice it.
double NearestFactor(int64_t dim, int64_t split) {
  const int64_t factor = LargestDivisorAtMost(dim, std::max<int64_t>(split, 1));
  return static_cast<double>(2 * factor > split ? factor : split);
}

}  // namespace

bool DoubleBufferedInputsFit(const Kernel& kernel, const Operand& big, double live_results, double tile,
                             double item, double ub_bytes) {
  const int64_t full = Elements(big);
  double full_inputs = 0, small_inputs = 0;
  for (const auto& in : kernel.inputs) (Elements(in) >= full ? full_inputs : small_inputs) += 1;
  // A small input (a scalar) takes one 32-byte block of UB per buffer.
  constexpr double kBlockBytes = 32;
  const double need = (2 * full_inputs + live_results) * tile * item + 2 * small_inputs * kBlockBytes;
  return need <= ub_bytes;
}

std::optional<TilePlan> ElewiseMultiTiles(const Kernel& kernel, const Operand& big, double item,
                                          double per_core, const target::Target& target) {
  if (kernel.op_type != "LambApplyOptimizerAssign" || !target.buffers.ub || big.shape.empty() ||
      per_core <= 0)
    return std::nullopt;
  // Six tensors live at once in the walk (above), each `item` / 2 float16 units wide: 12 in float32.
  constexpr double kLiveTensors = 6;
  // Six full-size results live at once in the stage order (above), beside the doubled inputs.
  constexpr double kLiveResults = 6;
  const double width = kLiveTensors * std::max(item, 1.0) / 2.0;
  const double half_words = target.buffers.ub->value / 2.0;
  const double count = std::max(128.0, std::floor(half_words / 2.0 / (width * 128.0)) * 128.0);
  TilePlan plan;
  if (per_core <= count) {  // the busiest block fits: one tile, no cut
    plan.tile = per_core, plan.tiles = 1;
    return plan;
  }
  // The axis at which the product of the inner axes reaches `count`; slices of `inner` elements.
  const auto& s = big.shape;
  size_t axis = s.size() - 1;
  double inner = 1;
  while (axis > 0 && inner * static_cast<double>(s[axis]) < count) inner *= static_cast<double>(s[axis--]);
  const int64_t fit = static_cast<int64_t>(std::floor(count / inner));
  const double slices =
      static_cast<double>(fit) * inner == count ? static_cast<double>(fit) : NearestFactor(s[axis], fit);
  plan.tile = slices * inner;
  plan.inputs_wait_for_work =
      !DoubleBufferedInputsFit(kernel, big, kLiveResults, plan.tile, item, target.buffers.ub->value);
  // The busiest block holds whole slices of the cut axis (the first-axis cut, LambUpdateBusiest).
  const double slices_per_core = std::ceil(per_core / inner);
  if (axis == 0) {
    plan.tiles = std::ceil(slices_per_core / slices);
  } else {
    const double axis_size = static_cast<double>(s[axis]);
    plan.tiles = std::ceil(slices_per_core / axis_size) * std::ceil(axis_size / slices);
  }
  return plan;
}

}  // namespace npugap::analysis::perf::internal
