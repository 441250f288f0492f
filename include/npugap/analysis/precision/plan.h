// The numerics plan: for every node of a model, in which number formats an Ascend NPU would read
// its inputs, compute, and store its outputs, given the target profile and the ATC / torch_npu
// precision mode. Computed once from model x target x options; the emulated run (emulate.h) applies
// it around and inside the FP32 executor's own kernels. Casts the compiler would insert are listed
// explicitly, so the performance model can count them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/numerics/format.h"
#include "npugap/target/target.h"

namespace npugap::analysis::precision {

// Which unit runs a node, as far as numerics are concerned.
enum class Unit : uint8_t { kCube, kVector, kAiCpu, kNone /* shape / index ops: no float math */ };

// How the node came to its formats: the mixed-precision list it is on, a user override, or the
// mode's blanket rule. Reported so a user can see why a node computes in fp16.
enum class Decision : uint8_t { kMode, kWhiteList, kGrayList, kBlackList, kKeepDtype, kMixlist, kKeepFp32 };

// How a uniform_<fmt> plan reproduces one of PyTorch's CPU kernels where "fp32 from the rounded
// inputs, one rounding" is not what the kernel does (data/precision/vector_kernels.json
// "uniform_kernels"; every other plan and op: kPlain).
enum class KernelVariant : uint8_t {
  kPlain,
  kOneDnnBf16,     // a Conv run through oneDNN's bf16 primitive (PyTorch's bf16 conv)
  kMeanRoundsSum,  // a mean computed as round(round(sum) / n) (PyTorch's mean: sum(...).div_(n))
  kBatchNormFma,   // inference BatchNorm as fma(x, alpha, beta) (PyTorch's CPU bf16 batch_norm)
  // Mul(x, Sigmoid(x)), torch.nn.SiLU as torch.onnx exports it, computed as PyTorch's bf16 silu
  // kernel: x / (1 + exp(-x)) with a rounding after each step. The Sigmoid is then unused.
  kSiluChain,
};

struct NodeNumerics {
  Unit unit = Unit::kNone;
  numerics::Format input = numerics::Format::kFP32;    // float inputs are rounded to this
  numerics::Format compute = numerics::Format::kFP32;  // intermediate precision inside the kernel
  numerics::Format output = numerics::Format::kFP32;   // float outputs are rounded to this
  Decision decision = Decision::kMode;
  // op_select_implmode high_performance (ATC's default) on an fp16 vector op with a multi-step
  // formula (vector_kernels.json): the emulator runs the formula with an fp16 rounding per step.
  bool high_performance_formula = false;
  KernelVariant kernel = KernelVariant::kPlain;
  std::string reason;  // one line, e.g. "gray list: follows its fp16 input"
};

// A Cast kernel the graph compiler would insert on a value between a producer and a consumer.
struct InsertedCast {
  std::string value;     // the ir value name
  std::string consumer;  // node name
  numerics::Format from, to;
};

struct PrecisionOptions {
  // ATC --precision_mode / --precision_mode_v2 name, or uniform_<fmt>; empty: the target's default.
  std::string mode;
  std::optional<numerics::Overflow> overflow;  // empty: the target's default overflow mode
  std::string keep_dtype_file;                 // ATC --keep_dtype file, or empty
  std::string modify_mixlist_file;             // ATC --modify_mixlist JSON, or empty
  // The --modify_mixlist JSON itself, read when modify_mixlist_file is empty (the --suggest-keep
  // check of the mixlist it writes).
  std::string modify_mixlist_text;
  std::optional<bool> allow_hf32_conv;  // torch_npu; empty: the target's default
  std::optional<bool> allow_hf32_matmul;
  std::string op_select_implmode;   // "" | high_precision | high_performance
  bool finite_accumulator = false;  // model of a finite cube accumulator (off: exact fp32)
  int accumulator_fraction_bits = 23;
  std::vector<std::string> keep_fp32_nodes;  // node names forced to fp32 (the --suggest-keep search)
  numerics::Rounding rounding = numerics::Rounding::kNearestEven;
  uint64_t seed = 0;  // stochastic rounding
};

struct PrecisionPlan {
  std::string mode;                    // canonical mode name
  numerics::RoundingOptions rounding;  // overflow and subnormal handling from the target / options
  std::vector<NodeNumerics> nodes;     // indexed like model.graph.nodes
  std::vector<InsertedCast> casts;
  std::vector<std::string> warnings;  // e.g. keep_dtype lines that name no node or op type
  bool finite_accumulator = false;
  int accumulator_fraction_bits = 23;
};

// Every mode name accepted (v1, v2, uniform_*), for error messages that list them.
std::vector<std::string> PrecisionModeNames();

Expected<PrecisionPlan> BuildPrecisionPlan(const ir::Model& model, const target::Target& target,
                                           const PrecisionOptions& options);

}  // namespace npugap::analysis::precision
