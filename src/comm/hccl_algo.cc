// Collective and algorithm names, HCCL_ALGO parsing and default algorithm selection.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "npugap/comm/collective.h"

namespace npugap::comm {
namespace {

struct OpEntry {
  Op op;
  const char* name;
};
constexpr OpEntry kOps[] = {
    {Op::kAllReduce, "allreduce"}, {Op::kAllGather, "allgather"}, {Op::kReduceScatter, "reducescatter"},
    {Op::kBroadcast, "broadcast"}, {Op::kReduce, "reduce"},       {Op::kAllToAll, "alltoall"},
    {Op::kAllToAllV, "alltoallv"}, {Op::kSendRecv, "sendrecv"}};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

Expected<Algo> ParseAlgoName(const std::string& s, const std::string& where) {
  if (s == "NA") return Algo::kAuto;
  if (s == "ring") return Algo::kRing;
  if (s == "H-D_R") return Algo::kHD;
  if (s == "NHR" || s == "NHR_V1") return Algo::kNHR;  // NHR_V1: the deprecated variant, same cost
  if (s == "NB") return Algo::kNB;
  if (s == "pipeline") return Algo::kPipeline;
  if (s == "pairwise") return Algo::kPairwise;
  if (s == "AHC")
    return Status::Unsupported(where + ": 'AHC' (asymmetric hierarchical concatenate) is not modelled");
  return Status::InvalidArgument(fmt::format(
      "{}: unknown algorithm '{}' (valid: NA, ring, H-D_R, NHR, NHR_V1, NB, pipeline, pairwise)", where, s));
}

bool IsPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

// HCCL's level numbering: 0 inside a server, 1 between servers (inside a supernode when the
// cluster has one), 2 between supernodes.
int HcclLevel(const Cluster& c, const Layout& layout, size_t l) {
  if (layout.stride[l] < c.npus_per_server) return 0;
  if (c.levels[l].kind != LevelKind::kFabric) return 1;
  for (size_t k = 0; k < l; ++k) {
    if (layout.stride[k] >= c.npus_per_server && c.levels[k].kind != LevelKind::kFabric) return 2;
  }
  return 1;
}

// HCCL's level-1 auto-selection on Atlas A2 when HCCL_ALGO is unset, as the open cann-hccl code
// does it (CollAlgOperator::GetDefaultAlgoLevel1V2 and SelectAlgoTypeFor*, coll_alg_operator.cc;
// docs/clusters.md "Algorithm selection"). m servers of d NPUs:
// 1. pipeline, for all-gather and (non-deterministic, inline-reduce) reduce-scatter from 2 MiB
//    per rank, for all-reduce from 2 MiB per slice (bytes / (m*d)), when its task count
//    m*(5(d-1)+8)+5 (doubled for all-reduce) fits the FFTS+ graph (65,535);
// 2. else the cheapest of ring, NHR and H-D_R in HCCL's own α-β costs with α = 60 µs ("static
//    delay" constant), ties going ring > NHR > H-D_R.
// Assumed (docs/clusters.md): fp32/fp16 sum (inline and RDMA reduce supported), HCCL_DETERMINISTIC
// unset, no RDMA Lite (its thresholds would be 32 KiB and 1 MiB), the NIC as the bandwidth.
Algo A2InterServerDefault(const Cluster& c, const Layout& layout, Op op, double bytes) {
  constexpr double kPipelineMinBytes = 2.0 * 1024 * 1024;  // PIPELINE_MIN_SIZE_NO_LITE
  constexpr double kFftsCapacity = 65535;                  // HCCL_FFTS_CAPACITY
  constexpr double kDelayUs = 60;                          // LATENCY, "static delay 60 us"
  const double d = layout.sizes[0], m = layout.sizes[1];
  const bool ar = op == Op::kAllReduce;
  const double tasks = (m * (5 * (d - 1) + 8) + 5) * (ar ? 2 : 1);
  if (d > 1 && tasks <= kFftsCapacity) {
    if ((op == Op::kAllGather || op == Op::kReduceScatter) && bytes / layout.ranks >= kPipelineMinBytes)
      return Algo::kPipeline;
    if (ar && bytes / (m * d) >= kPipelineMinBytes) return Algo::kPipeline;
  }
  // Costs in µs of one buffer-sized loop; only the H-D_R terms depend on the size.
  const double buff = c.hccl.buffsize_mb.value * 1024 * 1024;
  const double per_rank = op == Op::kAllGather || op == Op::kReduceScatter ? bytes / layout.ranks : bytes;
  const double loop = std::min(per_rank, op == Op::kAllReduce || op == Op::kBroadcast || op == Op::kReduce
                                             ? buff
                                             : buff / layout.ranks);
  const double bw = c.levels[1].bandwidth_gbps.value * 1e9;  // bytes/s per NPU
  // All-reduce, broadcast, reduce: loop / d per NPU, twice; all-gather, reduce-scatter: loop * ranks once.
  const bool twice = ar || op == Op::kBroadcast || op == Op::kReduce;
  const double volume = twice ? loop / d : loop * layout.ranks;
  const double k = twice ? 2 : 1;
  const double beta_us = volume / bw * 1e6;
  const double log_m = std::ceil(std::log2(m));
  const bool pow2 = IsPowerOfTwo(static_cast<int>(m));
  const double ring = k * (m - 1) * kDelayUs + k * (m - 1) / m * beta_us;
  if (op == Op::kBroadcast || op == Op::kReduce) {
    const double hd = pow2 ? k * std::log2(m) * kDelayUs + k * (m - 1) / m * beta_us
                           : (1 + 2 * std::floor(std::log2(m))) * kDelayUs + (1 + 2 * (m - 1) / m) * beta_us;
    return hd < ring ? Algo::kHD : Algo::kRing;
  }
  const double nhr = k * log_m * kDelayUs + k * (m - 1) / m * beta_us;
  const double hd = pow2 ? k * std::log2(m) * kDelayUs + k * (m - 1) / m * beta_us
                         : k * log_m * kDelayUs + k * (2 * m - 1) / m * beta_us;
  Algo best = nhr < ring ? Algo::kNHR : Algo::kRing;
  return hd < std::min(nhr, ring) ? Algo::kHD : best;
}

// HCCL's defaults on A3 (910_93) when HCCL_ALGO is unset, as the open cann-hccl code has them
// (docs/clusters.md "Algorithm selection"). AlgConfigurator::GetDefaultAlgoLevel1V1 gives level 1
// (servers of a supernode) H-D from 8 servers (HCCL_INTER_SERVER_RING_ALGO_MAX_SUPPORT_SERVER_NUM)
// or at a power of two, ring otherwise; only the 910B runs the size-based V2 selector. Each
// 910_93 operator (SelectAlgfor91093) then adjusts level 1 (A3Level1, below), and an all-reduce
// of at most 1 MiB per NPU of a server inside one supernode uses NHR (smallCountOptimMultiServer).
// SetAlgoLevel2 gives level 2 (between supernodes) H-D from 8 supernodes or at a power of two,
// ring otherwise. AIV, zero-copy and the small-count executors of reduce-scatter and broadcast
// are not modelled.
Algo A3Level1(Op op, Algo a);
Algo A3Default(const Layout& layout, size_t l, int hccl_level, Op op, double bytes) {
  const int n = layout.sizes[l];
  const bool hd = n >= 8 || IsPowerOfTwo(n);
  if (hccl_level >= 2) return hd ? Algo::kHD : Algo::kRing;
  const double per_server_npus = layout.sizes[0];
  const bool one_supernode = layout.sizes.size() == l + 1;
  if (op == Op::kAllReduce && per_server_npus > 2 && one_supernode &&
      bytes <= 1024.0 * 1024 * per_server_npus)
    return Algo::kNHR;
  return A3Level1(op, hd ? Algo::kHD : Algo::kRing);
}

// What each 910_93 operator does with the level-1 algorithm it is given (by GetDefaultAlgoLevel1V1
// or by HCCL_ALGO), read in the open cann-hccl operators (algorithm/impl/operator/*_operator.cc,
// SelectAlgfor91093): all-reduce, all-gather and reduce-scatter run H-D as NHR ("910_93 supernode
// supports only ring, NB and NHR between servers"); broadcast runs anything but NHR and NB as NHR
// ("scatter and broadcast support only NHR / NB"); reduce runs ring ("inter-server only support
// ring yet"; its whole-ring mode is not modelled).
Algo A3Level1(Op op, Algo a) {
  switch (op) {
    case Op::kReduce:
      return Algo::kRing;
    case Op::kBroadcast:
      return a == Algo::kNHR || a == Algo::kNB ? a : Algo::kNHR;
    case Op::kAllReduce:
    case Op::kAllGather:
    case Op::kReduceScatter:
      return a == Algo::kHD ? Algo::kNHR : a;
    default:
      return a;
  }
}

// One-server small all-reduce: AllReduceMeshSmallCountExecutor, which with HCCL_DETERMINISTIC
// unset (its default) runs the AllReduceReduceBcast template.
// - 910B (A2): at most 256 KiB in single-operator mode, larger ones AllReduceMeshOpbaseLoopExecutor
//   (AllReduceOperator::SelectAlgfor910B -> NonDeterministicSelector / MeshTopoSelector,
//   HCCL_SMALL_COUNT_256_KB; all_reduce_operator.cc).
// - 910_93 (A3): smallCountOptimSingleServer in SelectAlgfor91093, more than 2 devices and at most
//   512 KiB per rank (HCCL_SMALL_COUNT_512_KB * userRankSize_).
// Assumed: single-operator mode (hccl_test, eager PyTorch), inline reduce (fp32/fp16 sum), no
// retry, the CCL buffer not limiting.
bool SmallCountAllReduce(const Cluster& c, const Layout& layout, Op op, double bytes) {
  if (op != Op::kAllReduce || layout.sizes.size() != 1) return false;
  if (c.family == "A2") return c.levels[0].kind == LevelKind::kFullMesh && bytes <= 256.0 * 1024;
  if (c.family == "A3") return layout.ranks > 2 && bytes <= 512.0 * 1024 * layout.ranks;
  return false;
}

Algo DefaultAlgo(const Cluster& c, const Layout& layout, size_t l, int hccl_level, Op op, double bytes) {
  const Level& level = c.levels[l];
  if (hccl_level == 0) {
    if (SmallCountAllReduce(c, layout, op, bytes)) return Algo::kReduceBcast;
    if (level.kind == LevelKind::kFullMesh) return Algo::kMesh;
    return c.family == "A3" ? Algo::kMesh : Algo::kRing;
  }
  if (c.family == "910") return IsPowerOfTwo(layout.sizes[l]) ? Algo::kHD : Algo::kRing;  // documented
  if (c.family == "nvidia") return Algo::kRing;  // NCCL's ring for large messages (tree not modelled)
  if (c.family == "A2" && l == 1 && layout.sizes.size() == 2 && c.levels[0].kind == LevelKind::kFullMesh)
    return A2InterServerDefault(c, layout, op, bytes);
  if (c.family == "A3") return A3Default(layout, l, hccl_level, op, bytes);
  // Elsewhere no selector was read; NHR has ring's bandwidth term with ceil(log2 p) latency
  // steps, so it is never worse in HCCL's own cost formulas.
  return Algo::kNHR;
}

}  // namespace

const char* OpName(Op op) {
  for (const auto& e : kOps) {
    if (e.op == op) return e.name;
  }
  return "?";
}

Expected<Op> ParseOp(const std::string& name) {
  std::string valid;
  for (const auto& e : kOps) {
    if (name == e.name) return e.op;
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  return Status::InvalidArgument(fmt::format(
      "--op '{}': unknown collective (valid: {}; MoE expert parallelism: moe-dispatch, moe-combine)", name,
      valid));
}

double BusBwFactor(Op op, int n) {
  const double p = n;
  switch (op) {
    case Op::kAllReduce:
      return 2 * (p - 1) / p;
    case Op::kAllGather:
    case Op::kReduceScatter:
    case Op::kAllToAll:
    case Op::kAllToAllV:
      return (p - 1) / p;
    case Op::kBroadcast:
    case Op::kReduce:
    case Op::kSendRecv:
      return 1;
  }
  return 1;
}

const char* AlgoName(Algo a) {
  switch (a) {
    case Algo::kAuto:
      return "NA";
    case Algo::kMesh:
      return "fullmesh";
    case Algo::kRing:
      return "ring";
    case Algo::kHD:
      return "H-D_R";
    case Algo::kNHR:
      return "NHR";
    case Algo::kNB:
      return "NB";
    case Algo::kPipeline:
      return "pipeline";
    case Algo::kPairwise:
      return "pairwise";
    case Algo::kReduceBcast:
      return "reduce-bcast";
  }
  return "?";
}

// Tasks the host issues for one p-way mesh all-reduce, counted in the open cann-hccl
// templates (every notify post / wait, memcpy and reduce is one task; each of the p-1 peers has
// its own sub-stream, so a main <-> sub synchronisation is p-1 posts or waits):
// - AllReduceMeshDirect (the loop executor, per rank): reduce-scatter and all-gather alike are
//   memcpy, main->sub record + wait, (p-1) x {TxAck, RxAck}, sub->main record + wait, an empty
//   memcpy, sub wait + main record, (p-1) x {reduce or memcpy, TxDataSignal, RxDataSignal},
//   sub->main record + wait: 2 + 8(p-1) + 5(p-1) each, 4 + 26(p-1) in all (186 at p = 8).
// - AllReduceReduceBcast (the small-count executor) on rank 0, the root that every peer waits
//   for: reduce and broadcast alike are memcpy, main->sub record + wait, (p-1) x {TxAck,
//   RxDataSignal}, sub->main record + wait: 1 + 6(p-1) each, 2 + 12(p-1) in all (86 at p = 8);
//   the other ranks issue 6.
double MeshLoopTasks(int p) { return 4 + 26.0 * (p - 1); }
double ReduceBcastRootTasks(int p) { return 2 + 12.0 * (p - 1); }

// Assumed (docs/fidelity.md): the host cost is proportional to the tasks the slowest rank (the
// root) issues, with no fixed part, so the small-count executor costs its share of the loop
// executor's calibrated dispatch.
double DispatchScale(const Plan& plan, int ranks) {
  if (plan.levels.empty() || plan.levels[0] != Algo::kReduceBcast) return 1;
  return ReduceBcastRootTasks(ranks) / MeshLoopTasks(ranks);
}

std::vector<Algo> HcclAlgo::For(Op op) const {
  const HcclAlgo::Entry* all = nullptr;
  for (const auto& e : entries) {
    if (e.op && (*e.op == op || (op == Op::kAllToAllV && *e.op == Op::kAllToAll))) return e.levels;
    if (!e.op) all = &e;
  }
  return all ? all->levels : std::vector<Algo>{};
}

Expected<HcclAlgo> ParseHcclAlgo(const std::string& text) {
  HcclAlgo result;
  if (text.empty()) return result;
  const std::string where = "HCCL_ALGO '" + text + "'";
  for (const std::string& part : Split(text, '/')) {
    HcclAlgo::Entry entry;
    std::string body = part;
    if (const size_t eq = part.find('='); eq != std::string::npos) {
      const std::string op = part.substr(0, eq);
      if (op == "scatter") return Status::Unsupported(where + ": per-op entry 'scatter' is not modelled");
      auto parsed = ParseOp(op);
      if (!parsed.ok() || *parsed == Op::kSendRecv || *parsed == Op::kAllToAllV)
        return Status::InvalidArgument(fmt::format(
            "{}: unknown op '{}' (valid: allgather, reducescatter, allreduce, broadcast, reduce, alltoall)",
            where, op));
      entry.op = *parsed;
      body = part.substr(eq + 1);
    }
    for (const std::string& item : Split(body, ';')) {
      const size_t colon = item.find(':');
      if (colon == std::string::npos || item.rfind("level", 0) != 0)
        return Status::InvalidArgument(fmt::format("{}: '{}' is not levelN:ALGO", where, item));
      const std::string digits = item.substr(5, colon - 5);
      if (digits.size() != 1 || digits[0] < '0' || digits[0] > '2')
        return Status::InvalidArgument(
            fmt::format("{}: '{}': level must be level0, level1 or level2", where, item));
      const size_t level = static_cast<size_t>(digits[0] - '0');
      NPUGAP_ASSIGN_OR_RETURN(Algo algo, ParseAlgoName(item.substr(colon + 1), where));
      if (level == 0 && algo != Algo::kAuto)
        return Status::InvalidArgument(
            fmt::format("{}: level0 accepts only NA (got '{}')", where, item.substr(colon + 1)));
      if (entry.levels.size() <= level) entry.levels.resize(level + 1, Algo::kAuto);
      entry.levels[level] = algo;
    }
    result.entries.push_back(std::move(entry));
  }
  return result;
}

std::string Plan::Describe() const {
  std::string s;
  for (size_t l = 0; l < levels.size(); ++l)
    s += fmt::format("{}level{}:{}", l ? ";" : "", l, AlgoName(levels[l]));
  return s;
}

Expected<Plan> SelectPlan(const Cluster& c, const Layout& layout, Op op, double bytes, const HcclAlgo& user) {
  const std::vector<Algo> requested = user.For(op);
  // A per-op entry must suit its op; a global entry falls back to the defaults for ops its
  // algorithm does not serve (pipeline for broadcast, ring for all-to-all), as HCCL does.
  const bool per_op = std::any_of(user.entries.begin(), user.entries.end(), [&](const HcclAlgo::Entry& e) {
    return e.op && (*e.op == op || (op == Op::kAllToAllV && *e.op == Op::kAllToAll));
  });
  Plan plan;
  const bool alltoall = op == Op::kAllToAll || op == Op::kAllToAllV;
  const bool rooted = op == Op::kBroadcast || op == Op::kReduce;
  for (size_t l = 0; l < layout.sizes.size(); ++l) {
    const int hl = HcclLevel(c, layout, l);
    Algo a = static_cast<size_t>(hl) < requested.size() ? requested[static_cast<size_t>(hl)] : Algo::kAuto;
    if (a == Algo::kPairwise && !alltoall)
      return Status::InvalidArgument(
          fmt::format("HCCL_ALGO: pairwise applies to alltoall only, not {}", OpName(op)));
    if (alltoall && a != Algo::kAuto && a != Algo::kPairwise) {
      if (per_op)
        return Status::InvalidArgument(
            fmt::format("HCCL_ALGO: alltoall supports pairwise only (got {})", AlgoName(a)));
      a = Algo::kAuto;
    }
    if (a == Algo::kPipeline && (rooted || alltoall)) {
      if (per_op)
        return Status::InvalidArgument(fmt::format(
            "HCCL_ALGO: pipeline serves allreduce, allgather and reducescatter, not {}", OpName(op)));
      a = Algo::kAuto;
    }
    if (a == Algo::kPipeline && layout.sizes.size() != 2)
      return Status::InvalidArgument(fmt::format(
          "HCCL_ALGO: pipeline needs exactly two levels (intra- and inter-server); {} ranks span {}",
          layout.ranks, layout.sizes.size()));
    if (a == Algo::kAuto)
      a = alltoall ? Algo::kPairwise : DefaultAlgo(c, layout, l, hl, op, bytes);
    else if (c.family == "A3" && hl == 1 && !alltoall && a != Algo::kPipeline)
      a = A3Level1(op, a);  // the 910_93 operators override a requested level-1 algorithm too
    plan.levels.push_back(a);
  }
  // All-to-all runs flat over every rank; inside one full-mesh server it is one mesh step.
  if (alltoall) {
    const bool one_mesh = layout.sizes.size() == 1 && c.levels[0].kind == LevelKind::kFullMesh;
    plan.levels = {one_mesh ? Algo::kMesh : Algo::kPairwise};
  }
  if (op == Op::kSendRecv) plan.levels = {Algo::kAuto};
  // Pipeline is one algorithm spanning both levels.
  if (std::find(plan.levels.begin(), plan.levels.end(), Algo::kPipeline) != plan.levels.end())
    plan.levels = {Algo::kPipeline, Algo::kPipeline};
  return plan;
}

}  // namespace npugap::comm
