// What autograd keeps from forward for each op's backward (the rule per op type is in
// backward_rules.cc and docs/memory.md). Weights are model states, counted elsewhere, so only
// activation inputs and outputs are listed.
#pragma once

#include <cstdint>
#include <vector>

#include "npugap/ir/graph.h"

namespace npugap::analysis::memory {

struct SavedTensor {
  int value = -1;
  // Bytes per element when the saved tensor is not the value itself: a 1-byte mask (Dropout,
  // Relu's mask is its output so it is not one) or int64 indices (MaxPool); 0 = the value's dtype.
  int64_t element_bytes = 0;
  // Extra per-channel statistics (BatchNorm / LayerNorm mean and inverse std), in elements of float32.
  bool per_channel_stats = false;
};

// False for weights, Constant outputs and node outputs computed from weights alone (torch's
// Identity copies of shared weights): those are model states, not activations.
bool IsActivation(const ir::Graph& graph, int value);

// The value whose storage `value` shares: through views (Reshape, Flatten, ... of an activation),
// as torch views share their base tensor's storage. The value itself otherwise.
int StorageOf(const ir::Graph& graph, int value);

// The tensors `node` keeps for its backward, excluding initializers.
std::vector<SavedTensor> SavedForBackward(const ir::Graph& graph, const ir::Node& node);

}  // namespace npugap::analysis::memory
