// Timing a collective on a cluster: the analytical α-β-γ model (HCCL's formulas per level; exact
// when nothing is congested) and the flow-level simulator (max-min fair sharing of link capacity,
// ECMP, oversubscription) behind one entry point, with HCCL_BUFFSIZE rounds and stragglers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"
#include "npugap/comm/collective.h"
#include "npugap/comm/network.h"
#include "npugap/comm/schedule.h"

namespace npugap::comm {

enum class SimKind { kAnalytical, kFlow };
Expected<SimKind> ParseSimKind(const std::string& s);

struct Straggler {
  int rank = 0;
  double delay_s = 0;  // the rank enters the collective this late
};

// `count` random ranks, each late by a uniform delay in [0, max_delay_s], seeded.
std::vector<Straggler> RandomStragglers(int ranks, int count, double max_delay_s, uint64_t seed);

struct SimOptions {
  SimKind kind = SimKind::kAnalytical;
  HcclAlgo algo;              // user HCCL_ALGO; empty = defaults
  double buffsize_bytes = 0;  // HCCL_BUFFSIZE; 0 = the cluster's default
  uint64_t ecmp_seed = 1;
  std::vector<Straggler> stragglers;
  std::vector<LinkFault> link_faults;
  // Flow-level: events within this fraction of the current time are handled together (measured
  // effect at 3e-3: under 0.1% on 1,024-rank all-reduce, docs/fidelity.md).
  double merge_window_rel = 3e-3;
  // Add the cluster's host dispatch cost per collective (hccl_test-style timing). Off: device
  // time only, the large-message plateau a bandwidth figure describes.
  bool host_dispatch = true;
  // HCCL_RDMA_QPS_PER_CONNECTION (default 1, 1..32) and HCCL_MULTI_QP_THRESHOLD (default 512 KB,
  // 1..8192 KB): RDMA data between two ranks is split evenly over that many queue pairs, fewer when
  // a QP would carry less than the threshold. Each QP is its own flow with its own ECMP hash.
  int qps_per_connection = 1;
  double multi_qp_threshold_bytes = 512.0 * 1024;
  // A plan fixed by the caller instead of HCCL's selection: for kernels that do not go through
  // HCCL (DeepEP-style MoE dispatch writes to every peer at once, comm/moe.h).
  std::optional<Plan> plan;
};

struct CollectiveResult {
  double time_s = 0;
  double algbw_gbps = 0;           // bytes / time
  double busbw_gbps = 0;           // nccl-tests definition
  std::string algo;                // Plan::Describe()
  int rounds = 1;                  // HCCL_BUFFSIZE rounds
  double dispatch_s = 0;           // host dispatch included in time_s
  int64_t transfers = 0;           // per full round (flow-level)
  int64_t solves = 0;              // max-min re-solves (flow-level)
  double slowest_rank_wait_s = 0;  // longest a rank waits on a peer (stragglers, slow links)
  int slowest_rank = 0;            // the rank everyone waits for
  bool link_failed = false;
};

// One collective of spec.bytes on `ranks` ranks of `cluster`.
Expected<CollectiveResult> SimulateCollective(const Cluster& cluster, int ranks, const CollectiveSpec& spec,
                                              const SimOptions& options);

// The building blocks (exposed for tests and the benchmark).
struct FlowSimResult {
  double time_s = 0;
  int64_t solves = 0;
  std::vector<double> rank_finish_s;
};
// Times a schedule on a network; `start_s[r]` is when rank r enters (empty: all at 0).
FlowSimResult SimulateFlows(const Network& net, const Schedule& schedule, double reduce_bytes_per_s,
                            const std::vector<double>& start_s, double merge_window_rel);

// The same for several schedules on one network, one after the other: a schedule with the same
// transfers as the previous one (the HCCL_BUFFSIZE rounds of a collective differ only in bytes)
// reuses the simulator's records and memory. Each run gives what SimulateFlows gives.
class FlowSimulator {
 public:
  FlowSimulator(const Network& net, double reduce_bytes_per_s, double merge_window_rel);
  ~FlowSimulator();
  FlowSimulator(const FlowSimulator&) = delete;
  FlowSimulator& operator=(const FlowSimulator&) = delete;
  FlowSimResult Run(const Schedule& schedule, const std::vector<double>& start_s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// HCCL's closed-form α-β-γ time of one round (no stragglers).
double AnalyticalTime(const Cluster& cluster, const Layout& layout, const CollectiveSpec& spec,
                      const Plan& plan, const std::vector<LinkFault>& faults);

}  // namespace npugap::comm
