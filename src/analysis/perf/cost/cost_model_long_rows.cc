// The UB tile of a row-wise kernel whose row is longer than the tile cap (docs/perf.md, "Long
// rows"). TBE's softmax schedule, when a row does not fit the UB (`_do_tiling_last_with_workspace`,
// 2019 TBE te_schedule/softmax_schedule.py), splits the reduce axis itself: each UB tile is a
// piece of a row of about the UB's worth of elements, and each row reduction runs once per piece
// (accumulated into the row's result), as does the broadcast back. So a long row costs one
// reduce and one broadcast instruction per piece, each instruction as long as the piece.
//   - ND: a row is contiguous, so a piece is ceil(row / cap) of one row.
//   - FRACTAL_NZ ([.., n1, m1, m0, n0]): a row is n1 blocks of n0 elements a whole matrix apart,
//     but one block column (m1 m0 rows x n0) is contiguous, and one instruction covers the block
//     column of every row in the tile (the slices of PlanTiles). The piece is taken as many rows
//     (up to the matrix and the core's share) by as many whole block columns as the cap holds.
//     This is layout arithmetic: no NZ schedule for rows longer than the UB was found (TBE's
//     softmax and softmax_cross_entropy_with_logits schedules take ND only), so the choice of
//     rows first is an assumption, made without looking at any record (none runs such a kernel).
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
TilePlan LongRowTiles(const Operand& big, double cap, double per_core, double rows_per_matrix,
                      double rows_per_core) {
  TilePlan plan;
  const auto& s = big.shape;
  const size_t r = s.size();
  const double row = RowLength(big);
  const bool nz = big.format == "FRACTAL_NZ" && r >= 4;
  if (!nz) {
    const double pieces = std::ceil(row / cap);
    plan.tile = row / pieces;
    plan.tiles = std::ceil(per_core / plan.tile);
    plan.slices = 1;
    return plan;
  }
  const double n0 = static_cast<double>(s[r - 1]);
  const double n1 = static_cast<double>(s[r - 4]);
  const double rows =
      std::clamp(std::floor(cap / n0), 1.0, std::max(1.0, std::min(rows_per_matrix, rows_per_core)));
  const double columns = std::clamp(std::floor(cap / (rows * n0)), 1.0, n1);
  plan.tile = rows * columns * n0;
  plan.tiles = std::ceil(per_core / plan.tile);
  plan.slices = columns;
  return plan;
}

}  // namespace npugap::analysis::perf::internal
