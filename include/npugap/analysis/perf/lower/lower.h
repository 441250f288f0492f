// Lowering: an ONNX model (IR) -> the kernel sequence the Ascend graph compiler would run. Done as
// separate passes over a list of device ops, each a pure function testable on its own:
//
//   MapNodes        ir nodes -> one device op each (CANN op type), views and constants dropped
//   FuseOps         graph + UB fusion patterns (table in lower_fusion_patterns.cc), switchable
//                   like ATC's --fusion_switch_file
//   AddTraining     loss, backward kernels and optimizer update kernels, named as MindSpore emits
//                   them (shared/calibration/ascend910)
//   AssignDtypes    compute dtype per op from the precision mode; Cast kernels where they differ
//   PlaceAiCpu      ops the op support table puts on the AI CPU (analysis/compat)
//   AssignLayouts   NC1HWC0 / FRACTAL_Z / FRACTAL_NZ / ND per operand, TransData at each boundary
//   ToKernels       device ops -> perf::Kernel records with padded device shapes (AtomicAddrClean
//                   added before atomically accumulating kernels)
//
// docs/perf_iteration.md explains each pass and where its rules come from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npugap/analysis/perf/kernel.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf {

// kC1hwncoc0: the filter of a depthwise convolution (MindSpore's DepthwiseConv2dNative family and
// AvgPoolGrad's kernel_matrix), [C1, kh, kw, N = 1, Co = 16, C0].
enum class Format : uint8_t { kNd, kNc1hwc0, kFractalZ, kFractalNz, kC1hwncoc0 };
// CSV spelling: "ND", "NC1HWC0", "FracZ", "FRACTAL_NZ", "C1HWNCoC0"
std::string_view FormatName(Format f);

// What a kernel spends its time on, for the iteration breakdown.
enum class Category : uint8_t { kCube, kVector, kTransDataCast, kAiCpu };
std::string_view CategoryName(Category c);  // "cube", "vector", "transdata_cast", "aicpu"

enum class Phase : uint8_t { kForward, kBackward, kOptimizer };
std::string_view PhaseName(Phase p);

// One operand of a device op: the logical (ND) shape, dtype and the device format it is read or
// written in. `value` is the ir value it carries, or a negative id for tensors the lowering makes
// (gradients, BN statistics, masks); ids are unique within one lowering.
struct OpTensor {
  int value = -1;
  ir::DType dtype = ir::DType::kFloat32;
  ir::Shape shape;
  Format format = Format::kNd;
  bool weight = false;         // a model parameter (initializer)
  bool weight_grad = false;    // the gradient of a model parameter (training)
  std::optional<int> grad_of;  // training: the forward value this is the gradient of
};

struct DeviceOp {
  std::string name;     // ir node name(s) it came from, joined with '+'
  std::string op_type;  // CANN kernel type
  Category category = Category::kVector;
  Phase phase = Phase::kForward;
  std::vector<int> nodes;  // ir node indices
  std::vector<OpTensor> inputs;
  std::vector<OpTensor> outputs;
  std::string fused_by;        // the fusion pass that made it, empty when not fused
  bool aicpu = false;          // placed on the AI CPU
  bool atomic_output = false;  // accumulates into its output atomically: needs an AtomicAddrClean
  bool layout_fixed = false;   // formats already chosen (inserted TransData / Cast)
  ir::Shape window;            // pooling window (kh, kw) of a pooling op, for its gradient's operands
  bool keeps_fp32 = false;     // mixed-precision training runs it in fp32: the loss, the update chain
};

// --fusion_switch_file: passes are on unless the file turns them off. Both ATC formats are read:
// lines "PassName:off|on", or JSON {"Switch":{"GraphFusion":{...},"UBFusion":{...}}} where "ALL"
// switches every pass of that group and a named entry overrides ALL.
struct FusionSwitches {
  std::map<std::string, bool> passes;  // pass name -> on
  std::map<std::string, bool> all;     // "GraphFusion" / "UBFusion" -> ALL value, when given
  std::vector<std::string> warnings;   // names that match no pass npugap models
  bool Enabled(const std::string& pass, const std::string& group) const;
};
Expected<FusionSwitches> ParseFusionSwitches(const std::string& text, const std::string& origin);
Expected<FusionSwitches> LoadFusionSwitchFile(const std::string& path);
// The pass names npugap models (for warnings and docs), with their group.
std::vector<std::pair<std::string, std::string>> FusionPassNames();

// kAdam: MindSpore nn.Adam (the Adam kernel); kAdamW: nn.AdamWeightDecay, which graph mode fuses into
// AdamApplyOne(WithDecay)Assign per parameter.
enum class Optimizer : uint8_t { kMomentum, kLamb, kAdam, kAdamW };
Expected<Optimizer> ParseOptimizer(const std::string& name);

struct LowerOptions {
  bool train = false;
  // Eager single-op mode (torch_npu): no graph or UB fusion, each framework op its own kernel.
  bool eager = false;
  // ATC / torch_npu precision mode; empty: the target's framework default.
  std::string precision_mode;
  FusionSwitches fusion;
  Optimizer optimizer = Optimizer::kMomentum;
};

// Accepted --precision-mode names (v1 and v2 spellings).
std::vector<std::string> LowerPrecisionModes();

struct LoweredKernel {
  Kernel kernel;
  Category category = Category::kVector;
  Phase phase = Phase::kForward;
  std::string fused_by;
};

struct Lowering {
  std::string precision_mode;  // canonical name used
  std::vector<LoweredKernel> kernels;
  int64_t nodes = 0;           // ir nodes lowered
  int64_t fused_ops = 0;       // device ops removed by fusion
  int64_t transdata = 0;       // TransData kernels inserted
  int64_t casts = 0;           // Cast kernels inserted
  int64_t aicpu = 0;           // kernels on the AI CPU
  int64_t parameters = 0;      // trainable elements (training)
  int64_t gradient_bytes = 0;  // bytes of gradients all-reduced in data parallel (training)
  int64_t input_bytes = 0;     // host -> device bytes of one batch (graph inputs)
  std::vector<std::string> warnings;
};

// The whole pipeline.
Expected<Lowering> Lower(const ir::Model& model, const target::Target& target, const LowerOptions& options);

// ---- the passes, exposed for their tests ----
// `shapes` is indexed like graph.values (memory::StaticShapes); a value a pass needs without a
// shape is an error naming it.
using ShapeList = std::vector<std::optional<ir::Shape>>;
Expected<std::vector<DeviceOp>> MapNodes(const ir::Graph& graph, const ShapeList& shapes, bool train);
std::vector<DeviceOp> FuseOps(std::vector<DeviceOp> ops, const FusionSwitches& switches, bool train,
                              int64_t* fused_away = nullptr);
// A dense layer (a MatMul, fused or not, of an activation of rank >= 3 by a 2-D weight) runs as
// one 2-D matmul over all rows: its activation and output operands become [rows, features].
std::vector<DeviceOp> FlattenDenseMatMuls(std::vector<DeviceOp> ops);
struct TrainingInfo {
  int64_t parameters = 0;
  int64_t gradient_bytes = 0;
};
// `switches` decides the backward's UB fusions (TbeConv2DBackpropElemwiseFusionPass,
// TbeMatmulElemwiseFusionPass) as FuseOps decides the forward's: eager mode turns them off.
std::vector<DeviceOp> AddTraining(std::vector<DeviceOp> ops, Optimizer optimizer, bool mixed_precision,
                                  TrainingInfo* info = nullptr, const FusionSwitches& switches = {});
std::vector<DeviceOp> AssignDtypes(std::vector<DeviceOp> ops, const std::string& precision_mode, bool train,
                                   int64_t* casts = nullptr);
std::vector<DeviceOp> PlaceAiCpu(std::vector<DeviceOp> ops, const ir::Model& model,
                                 const target::Target& target);
std::vector<DeviceOp> AssignLayouts(std::vector<DeviceOp> ops, const target::Target& target,
                                    int64_t* transdata = nullptr);
std::vector<LoweredKernel> ToKernels(const std::vector<DeviceOp>& ops, const target::Target& target);

// The device shape of a logical shape in a format (NC1HWC0 5-D, FRACTAL_Z / FRACTAL_NZ 4-D+), with
// channels and matrix dims padded to C0 / 16 from the target profile; ND returns the shape.
ir::Shape DeviceShape(const ir::Shape& shape, ir::DType dtype, Format format, const target::Target& target);

}  // namespace npugap::analysis::perf
