// A collective expanded into point-to-point transfers. Transfers carry a step number; a rank runs
// its steps in order, and a transfer starts when both its ranks have finished their earlier steps
// (HCCL's notify handshake). Bytes received with `reduce` set are reduced at γ after arrival.
#pragma once

#include <cstdint>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"
#include "npugap/comm/collective.h"

namespace npugap::comm {

struct Transfer {  // 32 bytes: a 16,384-rank all-reduce has 590K of them
  int32_t src = 0;
  int32_t dst = 0;
  int32_t step = 0;
  int32_t qp = 0;  // which RDMA queue pair of the rank pair carries it (ECMP hashes each)
  double bytes = 0;
  double reduce_bytes = 0;  // bytes the destination reduces after this transfer arrives
};

struct Schedule {
  int ranks = 0;
  int steps = 0;
  std::vector<Transfer> transfers;  // sorted by step
};

struct CollectiveSpec {
  Op op = Op::kAllReduce;
  double bytes = 0;  // nccl-tests "size": the per-rank buffer (all-gather: the output buffer)
  int root = 0;      // broadcast / reduce root; send/recv source
  int peer = 1;      // send/recv destination
  // all-to-all-v: bytes[i][j] rank i sends to rank j; empty means uniform bytes / ranks.
  std::vector<std::vector<double>> alltoallv;
};

// Expands one collective (one HCCL_BUFFSIZE round) into transfers for the plan's algorithms.
Expected<Schedule> BuildSchedule(const Layout& layout, const CollectiveSpec& spec, const Plan& plan);

}  // namespace npugap::comm
