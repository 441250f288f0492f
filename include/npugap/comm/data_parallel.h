// Data-parallel training step: gradients are all-reduced in buckets as backward produces them
// (PyTorch DDP / torch_npu style), one bucket at a time on the communication stream, overlapped
// with the rest of backward. Step time and weak-scaling efficiency per rank count.
#pragma once

#include <vector>

#include "npugap/comm/simulate.h"

namespace npugap::comm {

struct DpOptions {
  double grad_bytes = 0;
  double bucket_bytes = 25.0 * 1024 * 1024;  // DDP's default bucket_cap_mb = 25
  double backward_s = 0;
  double forward_s = 0;  // optional; adds to compute, never overlaps
  SimOptions sim;
};

struct DpResult {
  int ranks = 0;
  int buckets = 0;
  double step_s = 0;
  double compute_s = 0;           // forward + backward
  double comm_s = 0;              // sum of bucket all-reduce times
  double exposed_comm_s = 0;      // step - compute
  double scaling_efficiency = 0;  // compute / step (1: communication fully hidden)
  std::string algo;               // of the largest bucket
};

Expected<DpResult> ModelDataParallelStep(const Cluster& cluster, int ranks, const DpOptions& options);

// The rank counts (8 .. 16,384) that fit the cluster.
std::vector<int> DefaultDpRankCounts(const Cluster& cluster);

}  // namespace npugap::comm
