// MoE dispatch / combine: the drawn routing, its all-to-all-v expansion and DeepEP's metric.
#include "npugap/comm/moe.h"

#include <algorithm>
#include <limits>
#include <random>
#include <unordered_set>

#include <fmt/format.h>

namespace npugap::comm {

bool IsMoeOp(const std::string& name) { return name == "moe-dispatch" || name == "moe-combine"; }

Expected<MoePhase> ParseMoePhase(const std::string& name) {
  if (name == "moe-dispatch") return MoePhase::kDispatch;
  if (name == "moe-combine") return MoePhase::kCombine;
  return Status::InvalidArgument("--op '" + name + "': not a MoE op (valid: moe-dispatch, moe-combine)");
}

Expected<MoeDtype> ParseMoeDtype(const std::string& name) {
  if (name == "int8") return MoeDtype::kInt8;
  if (name == "bf16") return MoeDtype::kBf16;
  return Status::InvalidArgument("--dtype '" + name + "': unknown MoE data type (valid: int8, bf16)");
}

double MoeWireBytesPerToken(MoeDtype dtype, int hidden) {
  return dtype == MoeDtype::kBf16 ? 2.0 * hidden : hidden + 4.0;
}

Status ValidateMoeSpec(const MoeSpec& s, int ranks) {
  if (ranks < 2)
    return Status::InvalidArgument(fmt::format("--ranks {}: MoE dispatch needs at least 2", ranks));
  if (s.tokens < 1) return Status::InvalidArgument(fmt::format("--tokens {}: must be >= 1", s.tokens));
  if (s.hidden < 1) return Status::InvalidArgument(fmt::format("--hidden {}: must be >= 1", s.hidden));
  if (s.topk < 1) return Status::InvalidArgument(fmt::format("--topk {}: must be >= 1", s.topk));
  if (s.experts < 1) return Status::InvalidArgument(fmt::format("--experts {}: must be >= 1", s.experts));
  if (s.topk > s.experts)
    return Status::InvalidArgument(fmt::format("--topk {}: more than the {} experts", s.topk, s.experts));
  if (s.experts % ranks != 0)
    return Status::InvalidArgument(fmt::format(
        "--experts {}: not divisible by --ranks {} (the test asserts num_experts % num_ranks == 0)",
        s.experts, ranks));
  // The routing holds ranks * tokens * topk experts; keep it under 1 GiB.
  if (static_cast<double>(ranks) * s.tokens * s.topk > 256e6)
    return Status::InvalidArgument(
        fmt::format("--tokens {} --topk {}: {} ranks route more than 256M (token, expert) pairs", s.tokens,
                    s.topk, ranks));
  return Status::Ok();
}

Expected<MoeRouting> DrawMoeRouting(const MoeSpec& s, int ranks) {
  NPUGAP_RETURN_IF_ERROR(ValidateMoeSpec(s, ranks));
  MoeRouting r{ranks, s.tokens, s.topk, s.experts, {}};
  r.expert.resize(static_cast<size_t>(ranks) * s.tokens * s.topk);
  const uint64_t n = static_cast<uint64_t>(s.experts);
  const bool scan = s.topk <= 64;
  std::unordered_set<int32_t> taken;
  if (!scan) taken.reserve(static_cast<size_t>(s.topk));
  for (int rank = 0; rank < ranks; ++rank) {
    // One stream per rank, as each rank of the test draws its own scores.
    std::seed_seq seq{static_cast<uint32_t>(s.seed), static_cast<uint32_t>(s.seed >> 32),
                      static_cast<uint32_t>(rank)};
    std::mt19937_64 rng(seq);
    int32_t* out = r.expert.data() + static_cast<size_t>(rank) * s.tokens * s.topk;
    for (int t = 0; t < s.tokens; ++t, out += s.topk) {
      // Rejection sampling of a k-subset: uniform, and cheap for k much smaller than the experts.
      // Multiply-shift maps 32 random bits onto [0, n) without a library-specific distribution.
      // A large k looks its draws up in a hash set instead of scanning them (a scan per draw is
      // quadratic in k: top-20000 of 20000 took seconds); the draws and the routing are the same.
      taken.clear();
      for (int k = 0; k < s.topk;) {
        const auto e = static_cast<int32_t>(((rng() >> 32) * n) >> 32);
        const bool fresh = scan ? std::find(out, out + k, e) == out + k : taken.insert(e).second;
        if (fresh) out[k++] = e;
      }
    }
  }
  return r;
}

MoeTokenCounts CountMoeTokens(const MoeRouting& r, bool dedup) {
  MoeTokenCounts c;
  c.tokens.assign(static_cast<size_t>(r.ranks), std::vector<int64_t>(static_cast<size_t>(r.ranks), 0));
  const int per_rank = r.ExpertsPerRank();
  std::vector<int> seen(static_cast<size_t>(r.ranks), -1);  // last token that reached each rank
  for (int src = 0; src < r.ranks; ++src) {
    std::fill(seen.begin(), seen.end(), -1);
    std::vector<int64_t>& row = c.tokens[static_cast<size_t>(src)];
    const int32_t* e = r.expert.data() + static_cast<size_t>(src) * r.tokens * r.topk;
    for (int t = 0; t < r.tokens; ++t)
      for (int k = 0; k < r.topk; ++k, ++e) {
        const int dst = *e / per_rank;
        ++c.routed;
        if (dedup && seen[static_cast<size_t>(dst)] == t) continue;
        seen[static_cast<size_t>(dst)] = t;
        ++row[static_cast<size_t>(dst)];
        ++c.sent;
      }
  }
  return c;
}

std::vector<std::vector<double>> MoeTransferBytes(const MoeTokenCounts& c, MoePhase phase,
                                                  double bytes_per_token) {
  const size_t p = c.tokens.size();
  std::vector<std::vector<double>> m(p, std::vector<double>(p, 0.0));
  for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j)
      m[i][j] = bytes_per_token *
                static_cast<double>(phase == MoePhase::kDispatch ? c.tokens[i][j] : c.tokens[j][i]);
  return m;
}

Expected<MoeResult> SimulateMoe(const Cluster& cluster, int ranks, const MoeSpec& spec, SimOptions o) {
  NPUGAP_ASSIGN_OR_RETURN(MoeRouting routing, DrawMoeRouting(spec, ranks));
  const MoeTokenCounts counts = CountMoeTokens(routing, spec.dedup);
  CollectiveSpec cs;
  cs.op = Op::kAllToAllV;
  cs.alltoallv = MoeTransferBytes(counts, spec.phase, MoeWireBytesPerToken(spec.dtype, spec.hidden));
  for (double b : cs.alltoallv[0]) cs.bytes += b;
  o.plan = Plan{{Algo::kMesh}};
  o.host_dispatch = false;
  o.buffsize_bytes = std::numeric_limits<double>::infinity();
  MoeResult r;
  NPUGAP_ASSIGN_OR_RETURN(r.collective, SimulateCollective(cluster, ranks, cs, o));
  r.bytes = cs.bytes;
  r.routed = counts.routed;
  r.sent = counts.sent;
  for (int src = 0; src < ranks; ++src) r.rank0_tokens += counts.tokens[static_cast<size_t>(src)][0];
  const double t = r.collective.time_s;
  r.deepep_bw_gbps = static_cast<double>(r.rank0_tokens) * spec.hidden * 2.0 / t / 1e9;
  r.wire_bw_gbps =
      static_cast<double>(r.rank0_tokens) * MoeWireBytesPerToken(spec.dtype, spec.hidden) / t / 1e9;
  return r;
}

}  // namespace npugap::comm
