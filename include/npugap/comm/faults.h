// HCCL's timeouts against a simulated collective: which rank raises which class of error, and
// how far each rank is from its timeout. Values are the cluster's HCCL defaults unless overridden.
#pragma once

#include <string>
#include <vector>

#include "npugap/comm/cluster.h"
#include "npugap/comm/simulate.h"

namespace npugap::comm {

struct TimeoutSettings {
  double connect_timeout_s = -1;  // HCCL_CONNECT_TIMEOUT; < 0: the cluster default
  double exec_timeout_s = -1;     // HCCL_EXEC_TIMEOUT; < 0: the cluster default; 0: never
  int rdma_timeout = -1;          // HCCL_RDMA_TIMEOUT exponent; < 0: the cluster default
  int rdma_retry_cnt = -1;        // HCCL_RDMA_RETRY_CNT; < 0: the cluster default
};

struct RankError {
  std::string ranks;        // "3" or "all but 3"
  std::string error_class;  // "EI0006 link set-up timeout", "EI0002 notify-wait timeout", ...
  double at_s = 0;          // when, from the moment the rank started waiting
  std::string reason;
};

struct TimeoutReport {
  double connect_effective_s = 0;  // HCCL_CONNECT_TIMEOUT + 20 s
  double exec_effective_s = 0;     // 910: floor(v/68)*68, at least 68; 0 = never
  double rdma_give_up_s = 0;       // (retry_cnt + 1) * 4.096 µs * 2^t
  double connect_margin_s = 0;     // effective connect timeout minus the longest link set-up wait
  double exec_margin_s = 0;        // effective exec timeout minus the longest notify wait
  std::vector<RankError> errors;   // empty: nothing times out
};

// `result` is the collective as simulated (with its stragglers and link faults); a straggler's
// delay is also what the other ranks would wait at link set-up if it hit the first collective.
Expected<TimeoutReport> AnalyzeTimeouts(const Cluster& cluster, const CollectiveResult& result,
                                        const SimOptions& options, const TimeoutSettings& settings);

}  // namespace npugap::comm
