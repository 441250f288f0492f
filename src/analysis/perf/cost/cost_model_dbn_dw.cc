// FusedDbnDw's BN-gradient pass as its TIK kernel issues it (impl/fused_dbn_dw.py, read in the
// public CANN ops copy; session 15, dbn10, docs/fidelity.md). The kernel is hand-tiled: a table
// keyed by (dy height, x height, dy channels, x channels[, kernel height[, stride]]) gives each
// supported ResNet-50 shape a pixel chunk `cal_hw`, and `_cal_dbn_fm_fun` runs the pass one
// chunk of 16 channels (one C1 plane) x cal_hw pixels at a time: two GM -> UB moves (dy, x_norm),
// eight vector instructions (two vconv up, two vmadd and two vmul over half of C0 each, a vadd,
// one vconv down) and a UB -> L1 move of dx for the MADs. So the instruction heads are paid per
// chunk, not per DSL UB tile, and a chunk is small (112 pixels: 28 repeats of 64 lanes).
#include <array>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

namespace {

// `_choose_split_dict`'s shapes and their pixel chunks. Channels are taken as C1 planes of 16
// (the stem's 3 input channels are one padded plane); kh is 1 for the 1x1 cases.
struct DbnDwCase {
  int64_t dy_h, x_h, dy_c1, x_c1, kh, stride;
  int64_t cal_hw;
};
constexpr std::array<DbnDwCase, 10> kCases = {{
    {56, 56, 16, 4, 1, 1, 224},   // case_56_56_256_64: 2 * 2 * 56
    {28, 28, 32, 8, 1, 1, 112},   // case_28_28_512_128: 7 * 16
    {56, 56, 4, 4, 1, 1, 112},    // case_56_56_64_64
    {28, 56, 32, 16, 1, 2, 112},  // case_28_56_512_256
    {56, 56, 4, 16, 1, 1, 112},   // case_56_56_64_256: 2 * 56
    {56, 56, 4, 4, 3, 1, 112},    // case_56_56_64_64_3
    {28, 28, 8, 32, 1, 1, 112},   // case_28_28_128_512
    {56, 56, 8, 16, 1, 1, 112},   // case_56_56_128_256
    {112, 224, 4, 1, 7, 2, 224},  // case_112_224_64_3_7_2: 16 * 14
    {14, 14, 64, 16, 1, 1, 196},  // case_14_14_1024_256: 14 * 14
}};

// The eight vector instructions and three DMA moves of one chunk (see the file comment).
constexpr double kVectorInstructionsPerChunk = 8;
constexpr double kLoadsPerChunk = 2;   // dy and x_norm, GM -> UB (MTE2)
constexpr double kStoresPerChunk = 1;  // dx, UB -> L1 (MTE3)
// Element passes of the pass over dy's elements: vconv x2, vmadd, vadd, vmul, vconv (the vmadd and
// the vmul are each split into two instructions over half of C0, one pass together).
constexpr double kPassesPerElement = 6;

}  // namespace

std::optional<DbnDwPass> FusedDbnDwPass(const Kernel& kernel, const target::Target& target) {
  if (kernel.op_type != "FusedDbnDw" || kernel.inputs.size() < 2 || kernel.outputs.size() < 2)
    return std::nullopt;
  const auto& x = kernel.inputs[0].shape;
  const auto& dy = kernel.inputs[1].shape;
  const auto& dw = kernel.outputs[1].shape;
  if (x.size() != 5 || dy.size() != 5 || dw.size() != 4 || x[1] <= 0 || dy[2] <= 0) return std::nullopt;
  const int64_t window = dw[0] / x[1];  // FracZ rows: kh * kw * x's C1
  const auto kh = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(window))));
  const int64_t stride = x[2] / dy[2];
  const DbnDwCase* found = nullptr;
  for (const DbnDwCase& c : kCases) {
    if (c.dy_h == dy[2] && c.x_h == x[2] && c.dy_c1 == dy[1] && c.x_c1 == x[1] && c.kh == kh &&
        c.stride == stride)
      found = &c;
  }
  // Any other shape makes the TIK kernel raise (E60108): MindSpore does not emit it, so there is
  // no chunk to cost and the caller keeps its generic vector rule.
  if (!found || !target.kernel) return std::nullopt;
  // BLOCK_DIM 32 blocks, each one image (8 consecutive images at batch 256).
  const int64_t images = (dy[0] + 31) / 32;
  const int64_t pixels = dy[2] * dy[3];
  const double chunks = static_cast<double>(images * dy[1] * ((pixels + found->cal_hw - 1) / found->cal_hw));
  VectorOps passes;
  passes.simple = kPassesPerElement;
  const int64_t per_core = images * dy[1] * pixels * dy[4];
  const double clock = target.compute.clock.value;
  DbnDwPass p;
  p.chunks = chunks;
  p.vector = VectorTime(per_core, passes, "float32", target) +
             chunks * kVectorInstructionsPerChunk *
                 InstructionHead(target.kernel->vector_instruction_heads, "simple") / clock;
  p.dma_heads = chunks *
                (kLoadsPerChunk * InstructionHead(target.kernel->dma_instruction_heads, "gm_to_ub") +
                 kStoresPerChunk * InstructionHead(target.kernel->dma_instruction_heads, "ub_to_gm")) /
                clock;
  return p;
}

}  // namespace npugap::analysis::perf::internal
