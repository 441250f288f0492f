// HCCL's α-β-γ cost formulas (hicann/hccl docs, coll_algo_intro), per level and phase. A step
// costs α + bytes·β + reduced·γ; on a full mesh every peer has its own link (β per pair), on a
// switch or fabric a rank's concurrent transfers share its port. Congestion inside the fabric
// (oversubscription, ECMP collisions) is the flow-level simulator's job.
#include <algorithm>
#include <cmath>
#include <limits>

#include "npugap/comm/simulate.h"
#include "pow2.h"

namespace npugap::comm {
namespace {

struct LevelCost {
  double alpha = 0, bw = 1, gamma = 1;
  bool mesh = false;
  // One step: `link` bytes on the busiest link, `port` bytes through a rank's port, `red` reduced.
  double Step(double link, double port, double red) const {
    return alpha + (mesh ? link : port) / bw + red / gamma;
  }
};

LevelCost CostOf(const Cluster& c, const Layout& L, size_t l, const std::vector<LinkFault>& faults) {
  const Level& level = c.levels[l];
  LevelCost cost;
  cost.alpha = level.latency_us.value * 1e-6;
  cost.bw = level.bandwidth_gbps.value * 1e9;
  cost.gamma = c.reduction_overlapped ? std::numeric_limits<double>::infinity() : c.reduce_gbps.value * 1e9;
  cost.mesh = level.kind == LevelKind::kFullMesh;
  if (level.kind == LevelKind::kFabric) {
    const int leaves = (L.ranks + c.fabric.nics_per_leaf - 1) / c.fabric.nics_per_leaf;
    const int hops = leaves <= 1 ? 1 : (leaves > c.fabric.leaves_per_pod ? 5 : 3);
    cost.alpha += hops * c.fabric.hop_latency_us.value * 1e-6;
  }
  // Synchronous steps wait for the slowest link of the level.
  for (const LinkFault& f : faults)
    if (f.level == level.name)
      cost.bw = std::min(cost.bw, level.bandwidth_gbps.value * 1e9 * std::max(f.factor, 1e-9));
  return cost;
}

// NHR / NB: ceil(log2 p) steps at distances 1, 2, 4, ..., each moving blk * min(d, p - d) bytes
// (reduced too in a reduce-scatter); NHR and NB differ only in the order of the distances.
double DistanceDoublingSteps(const LevelCost& c, int p, double blk, bool reduce) {
  double t = 0;
  for (int e = 0; e < CeilLog2(p); ++e) {
    const double b = blk * std::min(1 << e, p - (1 << e));
    t += c.Step(b, b, reduce ? b : 0);
  }
  return t;
}

double RS(const LevelCost& c, Algo a, int p, double n) {
  if (p == 1) return 0;
  const double blk = n / p;
  switch (a) {
    case Algo::kMesh:
      return c.Step(blk, (p - 1) * blk, (p - 1) * blk);
    case Algo::kHD: {
      const int q = FloorPow2(p);
      double t = q != p ? c.Step(n, n, n) + c.Step(n / q, n / q, 0) : 0;
      for (int j = 1; (1 << j) <= q; ++j) t += c.Step(n / (1 << j), n / (1 << j), n / (1 << j));
      return t;
    }
    case Algo::kNHR:
    case Algo::kNB:
      return DistanceDoublingSteps(c, p, blk, true);
    default:
      return (p - 1) * c.Step(blk, blk, blk);
  }
}

double AG(const LevelCost& c, Algo a, int p, double n) {
  if (p == 1) return 0;
  const double blk = n / p;
  switch (a) {
    case Algo::kMesh:
      return c.Step(blk, (p - 1) * blk, 0);
    case Algo::kHD: {
      const int q = FloorPow2(p);
      double t = q != p ? c.Step(blk, blk, 0) + c.Step(n, n, 0) : 0;
      for (int d = 1; d < q; d *= 2) t += c.Step(n / q * d, n / q * d, 0);
      return t;
    }
    case Algo::kNHR:
    case Algo::kNB:
      return DistanceDoublingSteps(c, p, blk, false);
    default:
      return (p - 1) * c.Step(blk, blk, 0);
  }
}

double Rooted(const LevelCost& c, Algo a, int p, double n, bool reduce) {
  if (p == 1) return 0;
  if (a == Algo::kHD) return CeilLog2(p) * c.Step(n, n, reduce ? n : 0);
  if (a == Algo::kMesh) return c.Step(n, (p - 1) * n, reduce ? (p - 1) * n : 0);
  const double fan = c.Step(n / p, (p - 1) * n / p, 0);  // scatter from / gather to the root
  return fan + (reduce ? RS(c, a, p, n) : AG(c, a, p, n));
}

// Whether some pair (i, i+k mod p) of a pairwise shift crosses exactly level l: i and i+k share the
// level-(l+1) group (block G) but not the level-l one (block s). Every shift crosses the top level.
bool PairwiseCrosses(const Layout& L, size_t l, int k) {
  if (l + 1 == L.sizes.size()) return true;
  const int s = L.stride[l], G = L.stride[l + 1], p = L.ranks;
  return k <= G - s || p - k <= G - s;
}

}  // namespace

double AnalyticalTime(const Cluster& cluster, const Layout& L, const CollectiveSpec& spec, const Plan& plan,
                      const std::vector<LinkFault>& faults) {
  const size_t levels = L.sizes.size();
  std::vector<LevelCost> cost;
  for (size_t l = 0; l < levels; ++l) cost.push_back(CostOf(cluster, L, l, faults));
  auto algo = [&](size_t l) { return plan.levels[std::min(l, plan.levels.size() - 1)]; };
  const double n = spec.bytes;
  std::vector<double> data(levels + 1, n);
  for (size_t l = 0; l < levels; ++l) data[l + 1] = data[l] / L.sizes[l];
  double t = 0;
  switch (spec.op) {
    case Op::kAllReduce:
    case Op::kReduceScatter:
    case Op::kAllGather: {
      if (plan.levels[0] == Algo::kPipeline) {
        const double chunk = n / L.ranks;
        const int passes = spec.op == Op::kAllReduce ? 2 : 1;
        const bool intra = L.sizes[0] > 1;
        for (int pass = 0; pass < passes; ++pass) {
          const double red = (pass == 0 && spec.op != Op::kAllGather) ? chunk : 0;
          const double inter = cost[1].alpha + chunk / cost[1].bw;
          const double in = intra ? cost[0].alpha + chunk / cost[0].bw : 0;
          t += (L.sizes[1] - 1) * (std::max(inter, in) + (intra ? 2 : 1) * red / cost[0].gamma);
          if (intra) t += in + red / cost[0].gamma;
        }
        return t;
      }
      if (plan.levels[0] == Algo::kReduceBcast)  // one server: reduce into rank 0, copy out
        return Rooted(cost[0], Algo::kMesh, L.sizes[0], n, true) +
               Rooted(cost[0], Algo::kMesh, L.sizes[0], n, false);
      const size_t top = levels - 1;
      const bool ar = spec.op == Op::kAllReduce;
      if (spec.op != Op::kAllGather)
        for (size_t l = 0; l < (ar ? top : levels); ++l) t += RS(cost[l], algo(l), L.sizes[l], data[l]);
      if (ar)
        t += RS(cost[top], algo(top), L.sizes[top], data[top]) +
             AG(cost[top], algo(top), L.sizes[top], data[top]);
      if (spec.op != Op::kReduceScatter)
        for (size_t l = ar ? top : levels; l-- > 0;) t += AG(cost[l], algo(l), L.sizes[l], data[l]);
      return t;
    }
    case Op::kBroadcast:
    case Op::kReduce:
      for (size_t l = 0; l < levels; ++l)
        t += Rooted(cost[l], algo(l), L.sizes[l], n, spec.op == Op::kReduce);
      return t;
    case Op::kAllToAll:
    case Op::kAllToAllV: {
      const int p = L.ranks;
      const LevelCost& c = cost[levels - 1];
      if (plan.levels[0] == Algo::kMesh) {
        // A port is busy for what it sends and, on its ingress side, for what it receives: an
        // uneven all-to-all-v (MoE dispatch) can load a receiver more than any sender.
        double link = 0, port = 0;
        std::vector<double> column(static_cast<size_t>(p), 0.0);
        for (int i = 0; i < p; ++i) {
          double row = 0;
          for (int j = 0; j < p; ++j) {
            const double b = spec.alltoallv.empty()
                                 ? n / p
                                 : spec.alltoallv[static_cast<size_t>(i)][static_cast<size_t>(j)];
            if (i != j) link = std::max(link, b), row += b, column[static_cast<size_t>(j)] += b;
          }
          port = std::max(port, row);
        }
        port = std::max(port, *std::max_element(column.begin(), column.end()));
        return c.Step(link, port, 0);
      }
      // Pairwise: Σ_k (α + β max_i n(i, i+k)), each shift costed at the slowest level it crosses.
      double t_pairwise = 0;
      for (int k = 1; k < p; ++k) {
        double worst = n / p;
        if (!spec.alltoallv.empty()) {
          worst = 0;
          for (int i = 0; i < p; ++i)
            worst = std::max(worst, spec.alltoallv[static_cast<size_t>(i)][static_cast<size_t>((i + k) % p)]);
        }
        double step = 0;
        for (size_t l = 0; l < levels; ++l)
          if (PairwiseCrosses(L, l, k)) step = std::max(step, cost[l].Step(worst, worst, 0));
        t_pairwise += step;
      }
      return t_pairwise;
    }
    case Op::kSendRecv: {
      const LevelCost& c = cost[L.CrossLevel(spec.root, spec.peer)];
      return c.Step(n, n, 0);
    }
  }
  return t;
}

}  // namespace npugap::comm
