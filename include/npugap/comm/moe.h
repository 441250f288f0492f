// DeepEP-style MoE dispatch and combine (expert parallelism): every rank routes its tokens to
// their top-k experts, spread evenly over the ranks, and sends each token once to every rank that
// holds one of its experts (dispatch); combine sends the expert outputs back the same way. Both
// are all-to-all-v collectives whose matrix comes from a drawn routing, timed with the usual
// simulators, and reported with DeepEP's own bandwidth metric (docs/comm.md, "MoE dispatch").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"
#include "npugap/comm/simulate.h"

namespace npugap::comm {

enum class MoePhase { kDispatch, kCombine };
enum class MoeDtype { kInt8, kBf16 };
// "moe-dispatch" / "moe-combine"; anything else is not a MoE op (the caller tries ParseOp).
bool IsMoeOp(const std::string& name);
Expected<MoePhase> ParseMoePhase(const std::string& name);
Expected<MoeDtype> ParseMoeDtype(const std::string& name);  // unknown names list the valid ones

struct MoeSpec {
  MoePhase phase = MoePhase::kDispatch;
  int tokens = 4096;  // per rank
  int hidden = 7168;
  int topk = 8;
  int experts = 256;  // routed experts, experts / ranks on each rank
  MoeDtype dtype = MoeDtype::kInt8;
  uint64_t seed = 0;
  // DeepEP sends a token once per destination rank however many of its experts live there. Off:
  // once per (token, expert), which sgl-kernel-npu's intranode test notes for its kernel
  // ("todo 1. Duplicate transmission to experts of the same rank").
  bool dedup = true;
};

// Bytes one token occupies on the wire: BF16 2 per element; INT8 1 per element plus one float32
// scale per token (sgl-kernel-npu's dispatch returns (int8 data, per-token scales)).
double MoeWireBytesPerToken(MoeDtype dtype, int hidden);

Status ValidateMoeSpec(const MoeSpec& spec, int ranks);

// expert[(rank * tokens + token) * topk + k]: the experts each token of each rank is routed to.
struct MoeRouting {
  int ranks = 0;
  int tokens = 0;
  int topk = 0;
  int experts = 0;
  std::vector<int32_t> expert;
  int ExpertsPerRank() const { return experts / ranks; }
};

// As the DeepEP / sgl-kernel-npu tests draw it: scores |randn| + 1 per (token, expert), top-k.
// The scores are i.i.d. and continuous, so each token's top-k set is a uniformly random k-subset
// of the experts; it is drawn as such (seeded per rank, reproducible), not with torch's generator,
// so the routing is distributed like the benchmark's but is not the benchmark's own.
Expected<MoeRouting> DrawMoeRouting(const MoeSpec& spec, int ranks);

struct MoeTokenCounts {
  std::vector<std::vector<int64_t>> tokens;  // [src][dst]: token copies src sends dst in dispatch
  int64_t routed = 0;                        // (token, expert) pairs over all ranks
  int64_t sent = 0;                          // copies after deduplication, self copies included
};
MoeTokenCounts CountMoeTokens(const MoeRouting& routing, bool dedup);

// The all-to-all-v byte matrix [src][dst]: dispatch sends counts[i][j] tokens from i to j,
// combine returns them (counts[j][i] from i to j).
std::vector<std::vector<double>> MoeTransferBytes(const MoeTokenCounts& counts, MoePhase phase,
                                                  double bytes_per_token);

struct MoeResult {
  CollectiveResult collective;  // bytes = rank 0's send buffer, self share included
  double bytes = 0;
  int64_t routed = 0;
  int64_t sent = 0;
  int64_t rank0_tokens = 0;  // tokens rank 0 receives in dispatch (= sends in combine)
  // DeepEP's printed figure: recv_x.numel() * 2 / t, i.e. rank 0's dispatch-received tokens
  // times hidden times 2 bytes (the test counts BF16 elements), over the kernel time.
  double deepep_bw_gbps = 0;
  double wire_bw_gbps = 0;  // the bytes rank 0 actually receives (dispatch) / sends (combine) / t
};

// Draws the routing, expands it and times it. The kernel writes to every peer at once (one mesh
// step over all ranks), does not go through HCCL's host expansion (no dispatch cost) and streams
// through its own buffer (no HCCL_BUFFSIZE rounds); the rest of `options` applies as given.
Expected<MoeResult> SimulateMoe(const Cluster& cluster, int ranks, const MoeSpec& spec, SimOptions options);

}  // namespace npugap::comm
