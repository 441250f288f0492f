// Collectives and HCCL algorithms: names, HCCL_ALGO parsing, and the per-level algorithm plan that
// HCCL's documented defaults (or the user's HCCL_ALGO) pick for a collective on a cluster.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"

namespace npugap::comm {

enum class Op {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kAllToAllV,
  kSendRecv
};
const char* OpName(Op op);
Expected<Op> ParseOp(const std::string& name);  // unknown names list the valid ones

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor (doc/PERFORMANCE.md).
double BusBwFactor(Op op, int ranks);

enum class Algo {
  kAuto,  // "NA": chosen by topology and size
  kMesh,  // level-0 full mesh: every pair at once
  kRing,
  kHD,        // H-D_R: recursive halving-doubling (pre/post step when p is not a power of two)
  kNHR,       // nonuniform hierarchical ring: ceil(log2 p) steps, distances halving
  kNB,        // nonuniform Bruck: ceil(log2 p) steps, distances doubling
  kPipeline,  // inter-server ring overlapped with intra-server transfers (two-level only)
  kPairwise,  // all-to-all in p-1 shifted steps
  // One-server small all-reduce on 910B / 910_93 (AllReduceMeshSmallCountExecutor, AllReduceReduceBcast):
  // every rank reduces its whole buffer into rank 0, then every rank copies the result back.
  // Chosen by the selector only; not an HCCL_ALGO value.
  kReduceBcast,
};
const char* AlgoName(Algo a);  // HCCL spelling: "ring", "H-D_R", "NHR", ...

// HCCL_ALGO: "level0:NA;level1:H-D_R[;level2:...]" or per op,
// "allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise".
struct HcclAlgo {
  struct Entry {
    std::optional<Op> op;      // nullopt: all ops
    std::vector<Algo> levels;  // index = level; kAuto where "NA" or absent
  };
  std::vector<Entry> entries;
  // The levels requested for `op` (empty when HCCL_ALGO says nothing about it).
  std::vector<Algo> For(Op op) const;
};
Expected<HcclAlgo> ParseHcclAlgo(const std::string& text);

// The algorithm per layout level (innermost first), after defaults are resolved.
struct Plan {
  std::vector<Algo> levels;
  std::string Describe() const;  // "level0:mesh;level1:H-D_R"
};

// The host-side dispatch cost of the plan's executor relative to the one the cluster's
// `hccl.dispatch_us` was calibrated on (HCCL_OP_EXPANSION_MODE HOST: the host issues every task
// of the expanded algorithm; docs/fidelity.md). 1 except for the small-count executor.
double DispatchScale(const Plan& plan, int ranks);

// HCCL's selection: the user's HCCL_ALGO where given (checked against what the op and level
// allow), else the documented defaults (docs/clusters.md, "Algorithm selection").
Expected<Plan> SelectPlan(const Cluster& cluster, const Layout& layout, Op op, double bytes,
                          const HcclAlgo& user);

}  // namespace npugap::comm
