// Replays the allocation / free sequence of several iterations through CachingAllocator: the
// torch_npu allocator as configured, the same with expandable_segments flipped, and the CUDA
// allocator's constants (no +32 B pad) to isolate what is NPU-specific.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "npugap/analysis/memory/allocator.h"
#include "npugap/analysis/memory/shapes.h"
#include "npugap/analysis/memory/training.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::memory {

// One request in program order: bytes > 0 allocates buffer `id`; bytes == 0 frees it.
struct AllocEvent {
  int64_t id = 0;
  int64_t bytes = 0;
};

// One iteration's events, ND layouts (torch_npu's default). Inference: every activation from its
// producer to its last reader. Training: forward keeps what backward needs (backward_rules.h),
// backward allocates each op's input gradients and frees its output gradients and saved tensors.
// Model states (weights, gradients, optimizer states) are allocated by the caller once.
Expected<std::vector<AllocEvent>> IterationEvents(const ir::Graph& graph, const ShapeMap& shapes,
                                                  bool training, Amp amp);

struct IterationResult {
  int64_t batch = 0;
  int64_t peak_allocated = 0;
  int64_t reserved = 0;  // after the iteration
};

struct ReplayResult {
  std::string name;  // "torch_npu", "torch_npu expandable_segments", "cuda"
  AllocatorConfig config;
  std::vector<IterationResult> iterations;
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;
  double fragmentation = 0;     // 1 - peak_allocated / peak_reserved
  int64_t reserved_growth = 0;  // reserved after the last iteration - after the first
  int64_t device_mallocs = 0;
  int64_t ooms = 0;
};

struct ReplayOptions {
  AllocatorConfig config;        // parsed PYTORCH_NPU_ALLOC_CONF (pad from the target)
  std::vector<int64_t> batches;  // one iteration per entry, in order
  bool training = false;
  TrainingOptions training_options;
  int64_t limit = 0;  // bytes the allocator may reserve; <= 0 unlimited
};

// `shapes_at(batch)` gives the model's shapes at each batch. Returns the three runs.
Expected<std::vector<ReplayResult>> ReplayAllocators(
    const ir::Graph& graph, const std::function<Expected<ShapeMap>(int64_t)>& shapes_at,
    const ReplayOptions& options);

}  // namespace npugap::analysis::memory
