// The fixed part of vector work: a vector kernel streams its data through the Unified Buffer in
// tiles, and each op of its formula is one instruction per tile with a fixed head (issue, pipeline
// fill) on top of its cost per element. Large tiles hide the heads; kernels whose tiles the data
// layout keeps small pay them many times (docs/perf.md, "Tiles"):
//   - a row-wise kernel (softmax, layer norm) holds whole rows in a tile, and each reduction or
//     broadcast along the row is one instruction per row slice: per row on ND, per n1 block column
//     on FRACTAL_NZ, whose row is cut into n1 blocks of n0 elements lying a whole matrix apart;
//   - a per-channel kernel on NC1HWC0 (batch norm and its fusions: an operand of shape
//     [1, C1, 1, 1, C0]) takes its channel parameters once per tile, so a tile stays inside one
//     (n, c1) plane of H x W x C0 elements: small feature maps mean small tiles.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
int FullSizeOperands(const Kernel& k, int64_t elements) {
  int n = 0;
  for (const auto* list : {&k.inputs, &k.outputs}) {
    for (const Operand& op : *list) n += Elements(op) == elements ? 1 : 0;
  }
  return std::max(n, 1);
}

namespace {

bool HasChannelOperand(const Kernel& k, const Operand& big) {
  if (big.format != "NC1HWC0" || big.shape.size() != 5) return false;
  for (const auto* list : {&k.inputs, &k.outputs}) {
    for (const Operand& op : *list) {
      const auto& s = op.shape;
      if (op.format == "NC1HWC0" && s.size() == 5 && Elements(op) < Elements(big) && s[0] == 1 &&
          s[1] == big.shape[1] && s[2] == 1 && s[3] == 1 && s[4] == big.shape[4])
        return true;
    }
  }
  return false;
}

// A reduction over every axis (an output of one element, SquareSumV1): each core sums a contiguous
// part of the tensor, so its tiles are plain elementwise tiles, not whole rows.
bool ReducesToScalar(const Kernel& k) {
  return std::any_of(k.outputs.begin(), k.outputs.end(), [](const Operand& op) { return Elements(op) <= 1; });
}

double Head(const target::Target& t, const char* cls) {
  return InstructionHead(t.kernel->vector_instruction_heads, cls);
}

}  // namespace

double RowLength(const Operand& op) {
  const auto& s = op.shape;
  const size_t r = s.size();
  if (op.format == "FRACTAL_NZ" && r >= 4) return static_cast<double>(s[r - 4] * s[r - 1]);
  return static_cast<double>(s[r - 1]);
}

TilePlan PlanTiles(const Kernel& kernel, const Operand& big, const VectorOps& ops, std::string_view dtype,
                   double cores, const target::Target& target) {
  TilePlan plan;
  const int64_t elements = Elements(big);
  if (!target.buffers.ub || elements == 0) return plan;
  // An op that computes in float32 holds its tiles in float32 (VectorKernelTime).
  const double item = static_cast<double>(ops.fp32 ? std::max<int64_t>(ItemSize(dtype), 4) : ItemSize(dtype));
  // Every full-size operand has a buffer, doubled so that DMA fills one while the vector unit
  // works on the other (the assumed UB split, docs/perf.md).
  const double ub = static_cast<double>(target.buffers.ub->value);
  const double doubled = std::max(1.0, std::floor(ub / (2.0 * FullSizeOperands(kernel, elements) * item)));
  // Kernels whose own source sizes the tile: SquareSumV1's atomic reduce, DropoutDoMask's IR builder.
  const double cap = AtomicReduceTileElements(kernel, target)
                         .value_or(DropoutDoMaskTileElements(kernel, dtype, target).value_or(doubled));
  const double per_core = static_cast<double>(elements) / cores;
  const auto& s = big.shape;
  const size_t r = s.size();

  plan.tile = cap;
  plan.tiles = std::ceil(per_core / cap);
  if (const auto multi = ElewiseMultiTiles(kernel, big, item, per_core, target)) return *multi;
  if (ops.reduce > 0 && r >= 1 && !ReducesToScalar(kernel)) {
    const bool nz = big.format == "FRACTAL_NZ" && r >= 4;
    const double row = RowLength(big);
    const double rows_per_matrix =
        nz ? static_cast<double>(s[r - 3] * s[r - 2]) : std::numeric_limits<double>::infinity();
    // Whole rows, no more than one matrix (NZ) and than the core has.
    const double rows_per_core = std::ceil(per_core / std::max(row, 1.0));
    // A row longer than the cap: the schedule splits the row itself (cost_model_long_rows.cc).
    if (row > cap) return LongRowTiles(big, cap, per_core, rows_per_matrix, rows_per_core);
    const double rows = std::clamp(std::floor(cap / std::max(row, 1.0)), 1.0,
                                   std::max(1.0, std::min(rows_per_matrix, rows_per_core)));
    plan.tile = rows * row;
    plan.tiles = std::ceil(per_core / plan.tile);
    plan.slices = nz ? static_cast<double>(s[r - 4]) : rows;
  } else if (HasChannelOperand(kernel, big)) {
    const double plane = static_cast<double>(s[2] * s[3] * s[4]);
    const double tiles_per_plane = std::ceil(plane / cap);
    plan.tile = plane / tiles_per_plane;
    plan.tiles = std::ceil(static_cast<double>(s[0] * s[1]) / cores) * tiles_per_plane;
    plan.per_channel = true;
  }
  return plan;
}

double VectorKernelTime(const Kernel& kernel, const Operand& big, const VectorOps& ops,
                        std::string_view dtype, double cores, const target::Target& target,
                        const TilePlan* l0c_tiles) {
  const int64_t elements = Elements(big);
  // An op that computes in float32 casts each full-size operand stored in 2 bytes.
  VectorOps work = ops;
  const bool cast_up = ops.fp32 && ItemSize(dtype) == 2;
  if (cast_up) {
    dtype = "float32";
    work.simple += FullSizeOperands(kernel, elements);
  }
  double body = 0;
  if (const auto split = SplitFp32Reduce(ops, dtype)) {
    body = (VectorTime(elements, split->stored, dtype, target) +
            VectorTime(elements, split->wide, "float32", target)) /
           cores;
    work.simple += split->wide.simple;  // the casts pay their instruction heads too
  } else {
    body = VectorTime(elements, work, dtype, target) / cores;
  }
  if (!target.kernel || target.kernel->vector_instruction_heads.empty() || !target.buffers.ub ||
      elements == 0)
    return body;

  const double item = static_cast<double>(ItemSize(dtype));
  TilePlan plan = PlanTiles(kernel, big, ops, dtype, cores, target);
  // TBE's matmul UB fusion computes the epilogue per L0C tile (mmad_schedule.py: every fused
  // tensor `compute_at` the UB-chunk axis inside the tile loop), one instruction per op a chunk.
  if (l0c_tiles && l0c_tiles->tile > 0 && plan.slices == 0 && !plan.per_channel &&
      plan.tile > l0c_tiles->tile)
    plan.tile = l0c_tiles->tile, plan.tiles = l0c_tiles->tiles;
  // One instruction covers at most 255 repeats of the vector width.
  const double per_instruction =
      std::max(1.0, 255.0 * static_cast<double>(target.compute.vector_width.value) / 8.0 / item);
  const double splits = std::ceil(plan.tile / per_instruction);
  // A halving-tree sum inside one (n, c1) plane adds the upper half of the tile onto the lower
  // half. bn_update_grad's schedule emits the tree only while the reduced loop is longer than one
  // repeat (`_need_dichotomy_add`: 128 float16 / 64 float32 elements, 256 B), so the halving is
  // taken to stop there: ceil(log2(tile / repeat)) instructions per tile, at least one. The
  // intrinsic's own source was not found; the stop at one repeat is read from that condition.
  double tree = 0, tree_steps = 0;
  if (work.tree_sums > 0 && plan.per_channel) {
    tree = std::min(work.tree_sums, work.simple);
    const double repeat = static_cast<double>(target.compute.vector_width.value) / 8.0 / item;
    tree_steps = std::max(1.0, std::ceil(std::log2(std::max(plan.tile / repeat, 1.0))));
  }
  double per_tile =
      splits * ((work.simple - tree) * Head(target, "simple") +
                work.transcendental * Head(target, "transcendental") + work.divide * Head(target, "divide")) +
      tree * tree_steps * Head(target, "simple");
  if (plan.slices > 0)
    per_tile +=
        plan.slices * (work.reduce * Head(target, "reduce") + work.broadcast * Head(target, "simple"));
  else
    per_tile += splits * work.reduce * Head(target, "reduce");
  const RowValueOps row = RowValueInstructions(kernel, ops, cast_up, elements);
  per_tile += row.simple * Head(target, "simple") + row.transcendental * Head(target, "transcendental");
  return body + plan.tiles * per_tile / target.compute.clock.value;
}

}  // namespace npugap::analysis::perf::internal
