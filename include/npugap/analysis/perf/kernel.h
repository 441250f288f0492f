// A device kernel as the Ascend graph compiler emits it: CANN kernel type, how many AI Cores it is
// split over, and its operands in device formats. The same record describes a measured kernel
// (a row of shared/calibration/ascend910/*.csv) and a kernel that npugap's lowering predicts from
// an ONNX model, so the cost model is checked on exactly what it is later used on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/target/target.h"

namespace npugap::analysis::perf {

// One operand: device format ("ND", "NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z" (CSV: "FracZ"),
// "FRACTAL_NZ", "NDC1HWC0", "FRACTAL_Z_3D", ...), dtype name ("float16", "float32", "int32", ...),
// and the dims as stored in that format (NC1HWC0 is 5-D, FRACTAL_NZ 4-D).
struct Operand {
  std::string format;
  std::string dtype;
  std::vector<int64_t> shape;  // empty: a scalar
};

struct Kernel {
  std::string name;     // full op name (CSV) or ir node name(s) it came from
  std::string op_type;  // CANN kernel type: "Conv2D", "FusionOp_Conv2D_BNTrainingReduce", "TransData", ...
  int block_dim = 0;    // cores the kernel is split over; 0: unknown, the cost model chooses
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;
  bool aicpu = false;  // placed on the AI CPU (op support table), not an AI Core
};

// What limits a kernel, for the report.
enum class Bound : uint8_t { kCube, kVector, kMemory, kLatency, kAiCpu };
std::string_view BoundName(Bound b);  // "cube", "vector", "memory", "latency", "aicpu"

struct KernelCost {
  double time_us = 0;  // predicted device time of the kernel
  double cube_us = 0;  // components before overlap (see docs/perf.md for how they combine)
  double vector_us = 0;
  double memory_us = 0;
  double overhead_us = 0;  // fixed launch / scalar / sync cost
  int block_dim = 0;       // cores used (given, or chosen by the model)
  Bound bound = Bound::kLatency;
  // false: not costed (time_us is then 0), because the model has no rule for the op_type (note
  // empty) or because the record lacks what its rule needs (note says what).
  bool known = true;
  std::string note;
};

// The per-kernel cost model. Every constant comes from the target profile or from first
// principles documented in docs/perf.md; nothing is fitted to a workload.
KernelCost PredictKernel(const Kernel& kernel, const target::Target& target);

}  // namespace npugap::analysis::perf
