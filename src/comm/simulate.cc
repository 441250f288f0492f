// The front door: validates the request, picks the plan, splits the collective into
// HCCL_BUFFSIZE rounds and times them with the chosen simulator.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

#include "npugap/comm/simulate.h"

namespace npugap::comm {
namespace {

Status ValidateSpec(const CollectiveSpec& spec, int ranks) {
  if (!(spec.bytes > 0) || !std::isfinite(spec.bytes))
    return Status::InvalidArgument(fmt::format("--bytes {}: must be > 0", spec.bytes));
  if (spec.root < 0 || spec.root >= ranks)
    return Status::InvalidArgument(fmt::format("--root {}: outside 0..{}", spec.root, ranks - 1));
  if (spec.op == Op::kSendRecv && (spec.peer < 0 || spec.peer >= ranks || spec.peer == spec.root))
    return Status::InvalidArgument(
        fmt::format("--peer {}: must be another rank in 0..{}", spec.peer, ranks - 1));
  if (!spec.alltoallv.empty()) {
    if (spec.alltoallv.size() != static_cast<size_t>(ranks))
      return Status::InvalidArgument(
          fmt::format("alltoallv: {} rows for {} ranks", spec.alltoallv.size(), ranks));
    for (size_t i = 0; i < spec.alltoallv.size(); ++i) {
      if (spec.alltoallv[i].size() != static_cast<size_t>(ranks))
        return Status::InvalidArgument(
            fmt::format("alltoallv: row {} has {} entries, not {}", i, spec.alltoallv[i].size(), ranks));
      for (double b : spec.alltoallv[i])
        if (!(b >= 0))
          return Status::InvalidArgument(fmt::format("alltoallv: row {}: negative size {}", i, b));
    }
  }
  return Status::Ok();
}

// Per-round synchronisation: one notify handshake (a round trip) over the outermost level used.
// HCCL does not document the cost; this is npugap's assumption (docs/clusters.md).
double RoundSync(const Cluster& c, const Layout& L) {
  return 2 * c.levels[L.sizes.size() - 1].latency_us.value * 1e-6;
}

// HCCL_RDMA_QPS_PER_CONNECTION: each transfer over a fabric level (RDMA) is split evenly over
// min(qps, floor(bytes / threshold)) queue pairs, at least one (envref_07_0094 / 0095, CANN 8.x,
// official). Transfers stay in step order.
Expected<Schedule> SplitOverQueuePairs(Schedule s, const Cluster& c, const Layout& L, int qps,
                                       double threshold) {
  if (qps <= 1) return s;
  Schedule out;
  out.ranks = s.ranks;
  out.steps = s.steps;
  out.transfers.reserve(s.transfers.size());
  for (const Transfer& t : s.transfers) {
    const bool rdma = c.levels[L.CrossLevel(t.src, t.dst)].kind == LevelKind::kFabric;
    const int n = rdma ? static_cast<int>(std::clamp(std::floor(t.bytes / threshold), 1.0, double(qps))) : 1;
    for (int q = 0; q < n; ++q)
      out.transfers.push_back({t.src, t.dst, t.step, q, t.bytes / n, t.reduce_bytes / n});
    if (out.transfers.size() > 20'000'000)
      return Status::Unsupported(fmt::format(
          "--qps {}: {} ranks expand to more than 20,000,000 flows; use fewer QPs or --sim analytical", qps,
          L.ranks));
  }
  return out;
}

}  // namespace

Expected<SimKind> ParseSimKind(const std::string& s) {
  if (s == "analytical") return SimKind::kAnalytical;
  if (s == "flow") return SimKind::kFlow;
  return Status::InvalidArgument("--sim '" + s + "': unknown simulator (valid: analytical, flow)");
}

std::vector<Straggler> RandomStragglers(int ranks, int count, double max_delay_s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> order(static_cast<size_t>(ranks));
  for (int i = 0; i < ranks; ++i) order[static_cast<size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::uniform_real_distribution<double> delay(0, max_delay_s);
  std::vector<Straggler> out;
  for (int i = 0; i < std::min(count, ranks); ++i) out.push_back({order[static_cast<size_t>(i)], delay(rng)});
  return out;
}

Expected<CollectiveResult> SimulateCollective(const Cluster& cluster, int ranks, const CollectiveSpec& spec,
                                              const SimOptions& o) {
  NPUGAP_ASSIGN_OR_RETURN(Layout layout, MakeLayout(cluster, ranks));
  NPUGAP_RETURN_IF_ERROR(ValidateSpec(spec, ranks));
  if (ranks < 2)
    return Status::InvalidArgument(fmt::format("--ranks {}: a collective needs at least 2 ranks", ranks));
  Plan plan;
  if (o.plan) {
    plan = *o.plan;
  } else {
    NPUGAP_ASSIGN_OR_RETURN(plan, SelectPlan(cluster, layout, spec.op, spec.bytes, o.algo));
  }
  if (o.qps_per_connection < 1 || o.qps_per_connection > 32)
    return Status::InvalidArgument(
        fmt::format("--qps {}: HCCL_RDMA_QPS_PER_CONNECTION must be in 1..32", o.qps_per_connection));
  if (!(o.multi_qp_threshold_bytes >= 1024) || o.multi_qp_threshold_bytes > 8192.0 * 1024)
    return Status::InvalidArgument(fmt::format("--qp-threshold {}: HCCL_MULTI_QP_THRESHOLD must be 1K..8192K",
                                               o.multi_qp_threshold_bytes));
  std::vector<double> start(static_cast<size_t>(ranks), 0.0);
  for (const Straggler& s : o.stragglers) {
    if (s.rank < 0 || s.rank >= ranks)
      return Status::InvalidArgument(fmt::format("--straggler {}: rank outside 0..{}", s.rank, ranks - 1));
    if (!(s.delay_s >= 0))
      return Status::InvalidArgument(fmt::format("--straggler {}: delay must be >= 0", s.rank));
    start[static_cast<size_t>(s.rank)] += s.delay_s;
  }
  // NCCL streams through its own channel buffers: no HCCL_BUFFSIZE rounds unless asked for.
  const double buff = o.buffsize_bytes > 0         ? o.buffsize_bytes
                      : cluster.family == "nvidia" ? std::numeric_limits<double>::infinity()
                                                   : cluster.hccl.buffsize_mb.value * 1024 * 1024;
  CollectiveResult result;
  result.algo = spec.op == Op::kSendRecv ? "p2p" : plan.Describe();
  result.rounds = static_cast<int>(std::max(1.0, std::ceil(spec.bytes / buff - 1e-12)));
  const double last_bytes = result.rounds == 1 ? spec.bytes : spec.bytes - (result.rounds - 1) * buff;
  const auto latest = std::max_element(start.begin(), start.end());
  const double max_delay = *latest;
  result.slowest_rank = static_cast<int>(latest - start.begin());
  result.slowest_rank_wait_s = max_delay - *std::min_element(start.begin(), start.end());

  auto round_spec = [&](double bytes) {
    CollectiveSpec s = spec;
    s.bytes = bytes;
    if (!s.alltoallv.empty())
      for (auto& row : s.alltoallv)
        for (double& b : row) b *= bytes / spec.bytes;
    return s;
  };
  double total = 0;
  if (o.kind == SimKind::kAnalytical) {
    const double full =
        AnalyticalTime(cluster, layout, round_spec(std::min(buff, spec.bytes)), plan, o.link_faults);
    const double last = AnalyticalTime(cluster, layout, round_spec(last_bytes), plan, o.link_faults);
    total = max_delay + (result.rounds - 1) * full + last;
    NPUGAP_ASSIGN_OR_RETURN(Network check, Network::Build(cluster, layout, o.ecmp_seed, o.link_faults));
    result.link_failed = check.has_failed_link();
  } else {
    NPUGAP_ASSIGN_OR_RETURN(Network net, Network::Build(cluster, layout, o.ecmp_seed, o.link_faults));
    result.link_failed = net.has_failed_link();
    const double gamma = cluster.reduction_overlapped ? std::numeric_limits<double>::infinity()
                                                      : cluster.reduce_gbps.value * 1e9;
    // Rounds are separated by a synchronisation, so equal rounds take equal time: the first round
    // (with the stragglers' late entry), one plain full round when there are more, and the last.
    FlowSimulator sim(net, gamma, o.merge_window_rel);  // the rounds share their transfers
    auto run = [&](double bytes, const std::vector<double>& st) -> Expected<FlowSimResult> {
      NPUGAP_ASSIGN_OR_RETURN(Schedule built, BuildSchedule(layout, round_spec(bytes), plan));
      NPUGAP_ASSIGN_OR_RETURN(Schedule sched,
                              SplitOverQueuePairs(std::move(built), cluster, layout, o.qps_per_connection,
                                                  o.multi_qp_threshold_bytes));
      result.transfers = std::max<int64_t>(result.transfers, static_cast<int64_t>(sched.transfers.size()));
      FlowSimResult r = sim.Run(sched, st);
      result.solves += r.solves;
      return r;
    };
    const std::vector<double> none;
    if (result.rounds == 1) {
      NPUGAP_ASSIGN_OR_RETURN(FlowSimResult r, run(spec.bytes, start));
      total = r.time_s;
    } else {
      NPUGAP_ASSIGN_OR_RETURN(FlowSimResult first, run(buff, start));
      total = first.time_s;
      if (result.rounds > 2) {
        double mid = first.time_s;  // without stragglers the first round is a plain one
        if (!o.stragglers.empty()) {
          NPUGAP_ASSIGN_OR_RETURN(FlowSimResult plain, run(buff, none));
          mid = plain.time_s;
        }
        total += (result.rounds - 2) * mid;
      }
      NPUGAP_ASSIGN_OR_RETURN(FlowSimResult last, run(last_bytes, none));
      total += last.time_s;
    }
  }
  total += (result.rounds - 1) * RoundSync(cluster, layout);
  result.dispatch_s =
      o.host_dispatch ? cluster.hccl.dispatch_us.value * 1e-6 * DispatchScale(plan, ranks) : 0;
  total += result.dispatch_s;
  result.time_s = total;
  result.algbw_gbps = spec.bytes / total / 1e9;
  result.busbw_gbps = result.algbw_gbps * BusBwFactor(spec.op, ranks);
  return result;
}

}  // namespace npugap::comm
