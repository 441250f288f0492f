// Timeout classes (ascend-facts §5.1, §5.4): link set-up waits up to HCCL_CONNECT_TIMEOUT + 20 s
// (EI0006 "Get Socket Timeout"); a notify wait up to HCCL_EXEC_TIMEOUT (EI0002); an RDMA link that
// stops acknowledging is retried HCCL_RDMA_RETRY_CNT times at 4.096 µs·2^HCCL_RDMA_TIMEOUT each
// before the sender's QP errors (an "error cqe" in the plog), after which its peers wait out the
// exec timeout.
#include "npugap/comm/faults.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace npugap::comm {

Expected<TimeoutReport> AnalyzeTimeouts(const Cluster& c, const CollectiveResult& result, const SimOptions& o,
                                        const TimeoutSettings& s) {
  const double connect = s.connect_timeout_s >= 0 ? s.connect_timeout_s : c.hccl.connect_timeout_s.value;
  if (connect < 120 || connect > 7200)
    return Status::InvalidArgument(fmt::format("HCCL_CONNECT_TIMEOUT {}: must be in [120, 7200] s", connect));
  double exec = s.exec_timeout_s >= 0 ? s.exec_timeout_s : c.hccl.exec_timeout_s.value;
  const int gran = c.hccl.exec_timeout_granularity_s;
  if (gran > 0 && exec > 0) {
    if (exec > 17340)
      return Status::InvalidArgument(
          fmt::format("HCCL_EXEC_TIMEOUT {}: must be in (0, 17340] s on 910", exec));
    exec = std::max<double>(gran, std::floor(exec / gran) * gran);
  }
  const int t = s.rdma_timeout >= 0 ? s.rdma_timeout : static_cast<int>(c.hccl.rdma_timeout.value);
  const int lo = 5, hi = c.family == "A2" || c.family == "A3" ? 20 : 24;  // A2/A3: [5,20]; others [5,24]
  if (t < lo || t > hi)
    return Status::InvalidArgument(fmt::format("HCCL_RDMA_TIMEOUT {}: must be in [{}, {}]", t, lo, hi));
  const int retry = s.rdma_retry_cnt >= 0 ? s.rdma_retry_cnt : static_cast<int>(c.hccl.rdma_retry_cnt.value);
  if (retry < 1 || retry > 7)
    return Status::InvalidArgument(fmt::format("HCCL_RDMA_RETRY_CNT {}: must be in [1, 7]", retry));

  TimeoutReport r;
  r.connect_effective_s = connect + 20;
  r.exec_effective_s = exec;
  r.rdma_give_up_s = (retry + 1) * 4.096e-6 * std::pow(2.0, t);
  const std::string slow = std::to_string(result.slowest_rank);
  const double wait = result.slowest_rank_wait_s;
  r.connect_margin_s = r.connect_effective_s - wait;
  if (wait > r.connect_effective_s)
    r.errors.push_back(
        {"all but " + slow, "EI0006 link set-up timeout (Get Socket Timeout)", r.connect_effective_s,
         fmt::format("rank {} reaches link set-up {:.1f} s late (> HCCL_CONNECT_TIMEOUT {} + 20 s)", slow,
                     wait, connect)});
  // A notify wait lasts from a rank's entry until its peers' data arrive: the straggler's delay
  // plus the collective itself for the rank that entered first.
  const double notify_wait = result.time_s;
  const double never = std::numeric_limits<double>::infinity();
  r.exec_margin_s = exec > 0 ? exec - notify_wait : never;
  if (result.link_failed) {
    std::string failed;
    for (const LinkFault& f : o.link_faults)
      if (f.factor == 0) failed += (failed.empty() ? "" : ", ") + fmt::format("{} ({})", f.rank, f.level);
    const bool rdma = std::any_of(o.link_faults.begin(), o.link_faults.end(), [&](const LinkFault& f) {
      return f.factor == 0 && !c.levels.empty() && f.level == c.levels.back().name;
    });
    if (rdma)
      r.errors.push_back({failed, "RDMA retry exhausted (error cqe)", r.rdma_give_up_s,
                          fmt::format("{} retries x 4.096 us x 2^{} on a failed RoCE link", retry + 1, t)});
    r.errors.push_back({rdma ? "the peers of " + failed : "all", "EI0002 notify-wait timeout", exec,
                        "a failed link never delivers; the waiting ranks time out after HCCL_EXEC_TIMEOUT"});
    r.exec_margin_s = exec > 0 ? -never : never;
  } else if (exec > 0 && notify_wait > exec) {
    r.errors.push_back(
        {"all but " + slow, "EI0002 notify-wait timeout", exec,
         fmt::format("the collective needs {:.1f} s including rank {}'s late entry", notify_wait, slow)});
  }
  return r;
}

}  // namespace npugap::comm
