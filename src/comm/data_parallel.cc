// Bucket k's gradients are ready when backward has produced the bytes up to it (backward is
// assumed to produce gradient bytes at a uniform rate); its all-reduce starts when it is ready and
// the previous bucket's all-reduce is done.
#include "npugap/comm/data_parallel.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace npugap::comm {

Expected<DpResult> ModelDataParallelStep(const Cluster& cluster, int ranks, const DpOptions& o) {
  if (!(o.grad_bytes > 0))
    return Status::InvalidArgument(fmt::format("--grad-bytes {}: must be > 0", o.grad_bytes));
  if (!(o.bucket_bytes > 0))
    return Status::InvalidArgument(fmt::format("--bucket {}: must be > 0", o.bucket_bytes));
  if (!(o.backward_s >= 0))
    return Status::InvalidArgument(fmt::format("--backward-ms {}: must be >= 0", o.backward_s * 1e3));
  if (!(o.forward_s >= 0))
    return Status::InvalidArgument(fmt::format("--forward-ms {}: must be >= 0", o.forward_s * 1e3));
  DpResult r;
  r.ranks = ranks;
  r.compute_s = o.forward_s + o.backward_s;
  r.buckets = static_cast<int>(std::ceil(o.grad_bytes / o.bucket_bytes - 1e-12));
  const double last = o.grad_bytes - (r.buckets - 1) * o.bucket_bytes;
  double full_time = 0, last_time = 0;
  if (ranks > 1) {
    CollectiveSpec spec;
    spec.op = Op::kAllReduce;
    spec.bytes = std::min(o.bucket_bytes, o.grad_bytes);
    NPUGAP_ASSIGN_OR_RETURN(CollectiveResult full, SimulateCollective(cluster, ranks, spec, o.sim));
    spec.bytes = last;
    NPUGAP_ASSIGN_OR_RETURN(CollectiveResult tail, SimulateCollective(cluster, ranks, spec, o.sim));
    full_time = full.time_s;
    last_time = tail.time_s;
    r.algo = full.algo;
  } else {
    NPUGAP_RETURN_IF_ERROR(MakeLayout(cluster, ranks).status());
  }
  double comm_free = 0;
  double produced = 0;
  for (int k = 0; k < r.buckets; ++k) {
    const bool is_last = k + 1 == r.buckets;
    produced += is_last ? last : o.bucket_bytes;
    const double ready = o.backward_s * produced / o.grad_bytes;
    const double t = is_last ? last_time : full_time;
    comm_free = std::max(comm_free, ready) + t;
    r.comm_s += t;
  }
  r.step_s = o.forward_s + std::max(o.backward_s, comm_free);
  r.exposed_comm_s = r.step_s - r.compute_s;
  r.scaling_efficiency = r.step_s > 0 ? r.compute_s / r.step_s : 1;
  return r;
}

std::vector<int> DefaultDpRankCounts(const Cluster& cluster) {
  std::vector<int> out;
  for (int n : {8, 16, 64, 384, 1024, 4096, 16384})
    if (MakeLayout(cluster, n).ok()) out.push_back(n);
  return out;
}

}  // namespace npugap::comm
