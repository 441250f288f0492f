// The lowering pipeline (lower.h) and its last steps: AI CPU placement from the op support table
// and the conversion of device ops into perf::Kernel records.
#include "npugap/analysis/perf/lower/lower.h"

#include <fmt/format.h>

#include <algorithm>

#include "lower_graph.h"
#include "npugap/analysis/compat/compat.h"

namespace npugap::analysis::perf {

bool IsLowerPrecisionMode(const std::string& name);  // lower_dtype.cc

std::string_view FormatName(Format f) {
  switch (f) {
    case Format::kNd:
      return "ND";
    case Format::kNc1hwc0:
      return "NC1HWC0";
    case Format::kFractalZ:
      return "FracZ";
    case Format::kFractalNz:
      return "FRACTAL_NZ";
    case Format::kC1hwncoc0:
      return "C1HWNCoC0";
  }
  return "ND";
}

std::string_view CategoryName(Category c) {
  switch (c) {
    case Category::kCube:
      return "cube";
    case Category::kVector:
      return "vector";
    case Category::kTransDataCast:
      return "transdata_cast";
    case Category::kAiCpu:
      return "aicpu";
  }
  return "vector";
}

std::string_view PhaseName(Phase p) {
  switch (p) {
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kOptimizer:
      return "optimizer";
  }
  return "forward";
}

std::vector<DeviceOp> PlaceAiCpu(std::vector<DeviceOp> ops, const ir::Model& model,
                                 const target::Target& target) {
  if (!target.is_ascend()) return ops;
  auto check = compat::CheckModel(model, target);
  if (!check.ok()) return ops;
  std::vector<bool> on_aicpu(model.graph.nodes.size(), false);
  for (size_t i = 0; i < check->nodes.size() && i < on_aicpu.size(); ++i) {
    on_aicpu[i] = check->nodes[i].verdict == compat::Verdict::kAiCpu;
  }
  for (DeviceOp& op : ops) {
    for (int n : op.nodes) {
      if (n >= 0 && static_cast<size_t>(n) < on_aicpu.size() && on_aicpu[static_cast<size_t>(n)]) {
        op.aicpu = true;
        op.category = Category::kAiCpu;
      }
    }
  }
  return ops;
}

namespace {
Operand ToOperand(const OpTensor& t, const target::Target& target) {
  return {std::string(FormatName(t.format)), std::string(ir::DTypeName(t.dtype)),
          DeviceShape(t.shape, t.dtype, t.format, target)};
}
// The outputs an atomically accumulating kernel adds into, which its AtomicAddrClean zeroes: every
// output, except a full-size result written plainly beside smaller accumulated ones (a
// convolution's output beside its BN sums, FusedDbnDw's dx beside its dw). In the calibration
// the cleans before those kernels take 1.3-1.6 us at block_dim 1-11: a few KiB zeroed, not the
// activation.
std::vector<Operand> AccumulatedOutputs(const DeviceOp& op, const target::Target& target) {
  int64_t largest = 0;
  for (const OpTensor& t : op.outputs) largest = std::max(largest, internal::Bytes(t));
  std::vector<Operand> out;
  for (const OpTensor& t : op.outputs) {
    if (internal::Bytes(t) < largest) out.push_back(ToOperand(t, target));
  }
  if (out.empty()) {
    for (const OpTensor& t : op.outputs) out.push_back(ToOperand(t, target));
  }
  return out;
}

// BNTrainingUpdateGrad sums dy and dy * x over N, H and W for each channel. With at least as many
// C1 planes as cores the cores split C1 and each writes its own channels; with fewer they split
// N and add their partial sums atomically. Found in the ResNet-50 calibration (an AtomicAddrClean
// before each of the 31 with C1 <= 16, none before the 22 with C1 >= 32, 32 cores). The split
// rule is the explanation that fits those records; TBE's bn_training_update_grad tiling was not
// read to confirm it.
bool NeedsAtomicClean(const DeviceOp& op, const target::Target& target) {
  if (!op.atomic_output || op.outputs.empty() || !target.is_ascend()) return false;
  if (op.op_type != "BNTrainingUpdateGrad" || op.inputs.empty()) return true;
  const ir::Shape x = DeviceShape(op.inputs[0].shape, op.inputs[0].dtype, op.inputs[0].format, target);
  return x.size() != 5 || x[1] < target.compute.vector_cores.value;
}

}  // namespace

std::vector<LoweredKernel> ToKernels(const std::vector<DeviceOp>& ops, const target::Target& target) {
  std::vector<LoweredKernel> out;
  out.reserve(ops.size() + ops.size() / 4);
  for (const DeviceOp& op : ops) {
    // Kernels that accumulate into their output atomically (BN statistics, filter gradients,
    // squared sums) are preceded by an AtomicAddrClean that zeroes it (calibration data).
    if (NeedsAtomicClean(op, target)) {
      LoweredKernel clean;
      clean.kernel.name = op.name + "/atomic_clean";
      clean.kernel.op_type = "AtomicAddrClean";
      clean.kernel.inputs = AccumulatedOutputs(op, target);
      clean.category = Category::kVector;
      clean.phase = op.phase;
      out.push_back(std::move(clean));
    }
    LoweredKernel k;
    k.kernel.name = op.name;
    k.kernel.op_type = op.op_type;
    k.kernel.aicpu = op.aicpu;
    for (const OpTensor& t : op.inputs) k.kernel.inputs.push_back(ToOperand(t, target));
    for (const OpTensor& t : op.outputs) k.kernel.outputs.push_back(ToOperand(t, target));
    k.category = op.aicpu ? Category::kAiCpu : op.category;
    if (op.op_type == "TransData" || op.op_type == "Cast") k.category = Category::kTransDataCast;
    k.phase = op.phase;
    k.fused_by = op.fused_by;
    out.push_back(std::move(k));
  }
  return out;
}

Expected<Lowering> Lower(const ir::Model& model, const target::Target& target, const LowerOptions& options) {
  Lowering result;
  result.precision_mode =
      options.precision_mode.empty() ? target.framework.default_precision_mode.value : options.precision_mode;
  if (!IsLowerPrecisionMode(result.precision_mode)) {
    std::string names;
    for (const auto& n : LowerPrecisionModes()) names += (names.empty() ? "" : ", ") + n;
    return Status::InvalidArgument(
        fmt::format("--precision-mode '{}': unknown (expected one of {})", result.precision_mode, names));
  }
  const ir::Graph& g = model.graph;
  // Shapes per value as the importer bound them; values without one are an error only where a
  // kernel needs them (MapNodes), so unused optional outputs (BatchNorm's running statistics in
  // a training export) do not stop the lowering.
  ShapeList shapes(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) shapes[v] = g.values[v].type.StaticShape();
  NPUGAP_ASSIGN_OR_RETURN(auto ops, MapNodes(g, shapes, options.train));
  result.nodes = static_cast<int64_t>(g.nodes.size());
  for (int v : g.inputs) {
    const auto& s = shapes[static_cast<size_t>(v)];
    if (s)
      result.input_bytes += internal::Numel(*s) *
                            static_cast<int64_t>(ir::DTypeSize(g.values[static_cast<size_t>(v)].type.dtype));
  }
  // Eager mode runs framework ops one by one: no UB fusion and no BN folding, but the graph
  // passes that only undo the ONNX export's decomposition of one framework op (LayerNorm, GELU,
  // linear's matmul + bias) still apply, since PyTorch runs those as single ops.
  FusionSwitches switches = options.fusion;
  if (options.eager) {
    switches.all["UBFusion"] = false;
    for (const auto& [name, group] : FusionPassNames()) {
      if (group == "UBFusion") switches.passes[name] = false;
    }
    switches.passes["ConvBatchnormFusionPass"] = false;
  }
  ops = FuseOps(std::move(ops), switches, options.train, &result.fused_ops);
  ops = FlattenDenseMatMuls(std::move(ops));
  if (options.train) {
    const bool mixed = result.precision_mode.find("mix") != std::string::npos;
    TrainingInfo info;
    ops = AddTraining(std::move(ops), options.optimizer, mixed, &info, switches);
    result.parameters = info.parameters;
    result.gradient_bytes = info.gradient_bytes;
  }
  ops = AssignDtypes(std::move(ops), result.precision_mode, options.train, &result.casts);
  ops = PlaceAiCpu(std::move(ops), model, target);
  ops = AssignLayouts(std::move(ops), target, &result.transdata);
  result.kernels = ToKernels(ops, target);
  for (const auto& k : result.kernels) result.aicpu += k.kernel.aicpu ? 1 : 0;
  result.warnings = options.fusion.warnings;
  // The loss goes on float graph outputs of rank >= 2 (lower_train.cc); a model with none (a 1-D
  // output) would otherwise report its forward pass as the training step without a word.
  if (options.train && std::none_of(result.kernels.begin(), result.kernels.end(),
                                    [](const LoweredKernel& k) { return k.phase == Phase::kBackward; })) {
    result.warnings.push_back(
        "--train: no float graph output of rank >= 2 to put a loss on: no backward or optimizer kernels, "
        "the step is the forward pass only");
  }
  return result;
}

}  // namespace npugap::analysis::perf
