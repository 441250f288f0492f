// Bytes as stored on the device and the time of moving them: the memory side of the cost model
// for every kernel class (docs/perf.md, "Memory").
#include <algorithm>
#include <cmath>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {

int64_t ItemSize(std::string_view dtype) {
  struct Size {
    std::string_view name;
    int64_t bytes;
  };
  static constexpr Size kSizes[] = {
      {"float16", 2}, {"float32", 4}, {"float", 4}, {"bfloat16", 2}, {"float64", 8}, {"double", 8},
      {"int8", 1},    {"uint8", 1},   {"int16", 2}, {"uint16", 2},   {"int32", 4},   {"uint32", 4},
      {"int64", 8},   {"uint64", 8},  {"bool", 1},  {"fp16", 2},     {"fp32", 4},    {"bf16", 2},
  };
  for (const Size& s : kSizes) {
    if (s.name == dtype) return s.bytes;
  }
  return 4;
}

int64_t Elements(const Operand& op) {
  int64_t n = 1;
  for (int64_t d : op.shape) n *= std::max<int64_t>(d, 0);
  return n;
}

double InstructionHead(const std::map<std::string, target::Number>& heads, const char* name) {
  const auto it = heads.find(name);
  return it == heads.end() ? 0.0 : it->second.value;
}

namespace {
bool IsFractalFormat(std::string_view f) {
  return f == "NC1HWC0" || f == "FracZ" || f == "FRACTAL_Z" || f == "FRACTAL_NZ" || f == "NDC1HWC0" ||
         f == "FRACTAL_Z_3D" || f == "C1HWNCoC0";
}

// `bytes` rounded up to whole UB blocks.
int64_t BlockBytes(int64_t bytes, int64_t ub_block) {
  const int64_t block = std::max<int64_t>(ub_block, 1);
  return (bytes + block - 1) / block * block;
}
}  // namespace

int64_t StoredBytes(const Operand& op, int64_t ub_block, bool cube_side) {
  int64_t item = ItemSize(op.dtype);
  // The NZ last-dim block is 32 B / itemsize: a 16-element block of a 4-byte label is fp16 storage
  // (ascend-facts §2.2, torch_npu FormatHelper treats fp32 as 2 B), in every operand of a kernel
  // with a cube part (the matmul model's reading; vector kernels use LabelledBytes). NC1HWC0's C0
  // is 16 for every type, so there only the cube's reads are fp16 (it takes fp16 operands).
  const bool nz = op.format == "FRACTAL_NZ";
  if ((cube_side || nz) && item == 4 && IsFractalFormat(op.format) && !op.shape.empty() &&
      op.shape.back() == 16 && (op.dtype == "float32" || op.dtype == "float")) {
    item = 2;
  }
  return BlockBytes(Elements(op) * item, ub_block);
}

int64_t LabelledBytes(const Operand& op, int64_t ub_block) {
  return BlockBytes(Elements(op) * ItemSize(op.dtype), ub_block);
}

bool IsFeatureMap(const Operand& op) {
  return op.format == "NC1HWC0" && op.shape.size() == 5 && op.shape[0] * op.shape[2] * op.shape[3] > 1;
}

bool IsChannelTensor(const Operand& op) {
  return op.format == "NC1HWC0" && op.shape.size() == 5 && op.shape[0] * op.shape[2] * op.shape[3] == 1;
}

bool IsReluBitMask(const Operand& op, const Operand& x) {
  const auto& m = op.shape;
  const auto& s = x.shape;
  return x.format == "NC1HWC0" && s.size() == 5 && m.size() == 5 && s[4] % 8 == 0 && m[4] == s[4] / 8 &&
         std::equal(m.begin(), m.begin() + 4, s.begin());
}

MoveTimes MoveTime(int64_t in_bytes, int64_t out_bytes, int cores, const target::Target& target) {
  MoveTimes t;
  const double clock = target.compute.clock.value;
  const double n = std::max(cores, 1);
  // Each core's MTE2 (GM -> UB) and MTE3 (UB -> GM) run in parallel; all cores share the HBM.
  if (target.datapath) {
    t.load = static_cast<double>(in_bytes) / n / (target.datapath->gm_to_ub.value * clock);
    t.store = static_cast<double>(out_bytes) / n / (target.datapath->ub_to_gm.value * clock);
  }
  t.hbm = static_cast<double>(in_bytes + out_bytes) / target.memory.bandwidth.value;
  return t;
}

MoveTimes DmaHeadTime(const Kernel& kernel, const Operand& big, const TilePlan& plan,
                      const target::Target& target) {
  MoveTimes t;
  if (!target.kernel || plan.tiles <= 0) return t;
  const auto head = [&](const char* dir) {
    return InstructionHead(target.kernel->dma_instruction_heads, dir);
  };
  // A full-size operand moves in one DMA instruction per tile. A smaller one is read once per
  // core, except on a per-channel kernel: each tile's (n, c1) plane reads the c1 slice of every
  // channel parameter. Smaller outputs (per-channel sums) are written once per core.
  const int64_t elements = Elements(big);
  double loads = 0, stores = 0;
  for (const Operand& op : kernel.inputs) {
    const bool full = Elements(op) == elements;
    loads += full || plan.per_channel ? plan.tiles : 1.0;
  }
  for (const Operand& op : kernel.outputs) stores += Elements(op) == elements ? plan.tiles : 1.0;
  const double clock = target.compute.clock.value;
  t.load = loads * head("gm_to_ub") / clock;
  t.store = stores * head("ub_to_gm") / clock;
  return t;
}

double PipelineFillTime(double load, double vector, double store, double tiles) {
  if (tiles < 1) return 0;
  // The first tile's load has nothing to overlap with and the last tile's vector work and store
  // neither: one tile's stages other than the slowest are not hidden.
  return (load + vector + store - std::max({load, vector, store})) / tiles;
}

double MoveLoopTime(double load, double store, double hbm, double tiles) {
  // The fill is a per-core effect. A data-movement kernel has no stage without DMA: its first
  // tile's load and its last tile's store are HBM traffic like every other, which the HBM bound
  // counts already, so a loop bound by the shared HBM has no fill on top of it.
  return std::max(std::max(load, store) + PipelineFillTime(load, 0, store, tiles), hbm);
}

std::vector<std::string_view> KernelParts(std::string_view op_type) {
  constexpr std::string_view kPrefix = "FusionOp_";
  if (op_type.substr(0, kPrefix.size()) != kPrefix) return {op_type};
  std::vector<std::string_view> parts;
  std::string_view rest = op_type.substr(kPrefix.size());
  while (!rest.empty()) {
    const size_t cut = rest.find('_');
    parts.push_back(rest.substr(0, cut));
    if (cut == std::string_view::npos) break;
    rest = rest.substr(cut + 1);
  }
  return parts;
}

}  // namespace npugap::analysis::perf::internal
