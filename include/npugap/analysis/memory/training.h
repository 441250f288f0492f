// Training memory of one data-parallel rank under torch_npu: model states (weights, gradients,
// optimizer states, FP32 master weights under AMP O2), the activations autograd keeps for backward
// (per op type, see backward_rules.h), the transient peak of backward, and the HCCL buffers.
#pragma once

#include <cstdint>
#include <string>

#include "npugap/analysis/memory/shapes.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::memory {

enum class Optimizer { kSgd, kMomentum, kAdam, kAdamW };
enum class Amp { kNone, kO1, kO2 };

// "sgd" | "momentum" | "adam" | "adamw"; the error names the value and the valid ones.
Expected<Optimizer> ParseOptimizer(const std::string& text);
// "none" | "O1" | "O2".
Expected<Amp> ParseAmp(const std::string& text);
// FP32 state tensors per parameter: SGD 0, momentum 1 (momentum buffer), Adam / AdamW 2 (m, v).
int OptimizerStatesPerParam(Optimizer optimizer);

struct TrainingOptions {
  Optimizer optimizer = Optimizer::kAdam;
  Amp amp = Amp::kNone;
  int64_t dp_ranks = 1;
};

struct TrainingReport {
  int64_t parameters = 0;            // trainable elements (float initializers, not BN statistics)
  int64_t weights_bytes = 0;         // model weights incl. buffers, in the model's dtype (fp16 under O2)
  int64_t gradients_bytes = 0;       // one per trainable weight (+ FP32 master gradients under O2)
  int64_t master_weights_bytes = 0;  // FP32 copies under O2
  int64_t optimizer_bytes = 0;       // FP32 states
  int64_t activations_bytes = 0;     // kept from forward for backward
  int64_t transient_bytes = 0;       // largest extra live during one op of forward or backward
  int64_t hccl_bytes = 0;            // 2 x HCCL_BUFFSIZE per communicator when dp_ranks > 1
  int64_t total_bytes = 0;
  std::string largest_saved;  // value name of the largest kept activation
  int64_t largest_saved_bytes = 0;
};

Expected<TrainingReport> PlanTraining(const ir::Graph& graph, const ShapeMap& shapes,
                                      const target::Target& target, const TrainingOptions& options);

}  // namespace npugap::analysis::memory
