// Inference memory: weights + the static activation plan + workspace, against the lower bound.
#pragma once

#include <cstdint>
#include <string>

#include "npugap/analysis/memory/lifetimes.h"
#include "npugap/analysis/memory/planner.h"
#include "npugap/base/status.h"
#include "npugap/ir/graph.h"
#include "npugap/target/target.h"

namespace npugap::analysis::memory {

struct InferenceOptions {
  std::string planner = "greedy-by-size";  // or "naive"
  bool npu_layouts = true;                 // NC1HWC0 / FRACTAL_NZ padding (see lifetimes.h)
};

struct InferenceReport {
  std::string planner;
  int64_t weights_bytes = 0;          // device bytes: laid out, padded, aligned
  int64_t weights_nd_bytes = 0;       // as in the model file
  int64_t activation_peak_bytes = 0;  // the planner's arena
  int64_t naive_bytes = 0;            // the same buffers without reuse
  int64_t lower_bound_bytes = 0;      // most activation bytes live at one step
  int64_t workspace_bytes = 0;        // the largest TransData workspace of any node
  int64_t layout_padding_bytes = 0;   // activation bytes added by NC1HWC0 / FRACTAL_NZ (sum over buffers)
  int64_t total_bytes = 0;            // weights + activation peak + workspace
  int64_t buffers = 0;
  std::string largest_buffer;  // the value name of the largest activation
  int64_t largest_buffer_bytes = 0;
};

Expected<InferenceReport> PlanInference(const ir::Graph& graph, const ShapeMap& shapes,
                                        const target::Target& target, const InferenceOptions& options = {});

}  // namespace npugap::analysis::memory
