// Expansion of collectives into point-to-point schedules. Each algorithm is written for one group
// of p members (local indices 0..p-1); a phase runs the same algorithm in every group of a level
// at the same steps. Data amounts follow HCCL's cost formulas (docs/clusters.md).
#include "npugap/comm/schedule.h"

#include <algorithm>

#include <fmt/format.h>

#include "pow2.h"

namespace npugap::comm {
namespace {

constexpr size_t kMaxTransfers = 20'000'000;  // ~0.6 GB of schedule; beyond, use the analytical model

// The expansion runs twice: a first pass counts the transfers of each step, a second writes each
// one into its place in step order (within a step in the order generated, as a stable sort by step
// would leave them). No growing vector and no sorted copy: the 590K transfers of a 16,384-rank
// all-reduce are written once, into memory of their exact size.
struct Builder {
  explicit Builder(Schedule& schedule, std::vector<size_t>* places = nullptr) : s(schedule), place(places) {}
  Schedule& s;
  std::vector<size_t>* place;    // second pass: where the next transfer of each step goes
  std::vector<size_t> per_step;  // first pass: transfers per step
  size_t total = 0;
  bool overflow = false;
  void Add(int step, int src, int dst, double bytes, double reduce) {
    if (total >= kMaxTransfers) {
      overflow = true;
      return;
    }
    ++total;
    const size_t k = static_cast<size_t>(step);
    if (place) {
      s.transfers[(*place)[k]++] = {src, dst, step, 0, bytes, reduce};
      return;
    }
    if (per_step.size() <= k) per_step.resize(k + 1, 0);
    ++per_step[k];
    if (step + 1 > s.steps) s.steps = step + 1;
  }
};

using Members = std::vector<int>;

// One step in which every member sends `bytes` to every other, of which `reduced` are reduced.
int MeshStep(Builder& b, const Members& m, double bytes, double reduced, int t) {
  const int p = static_cast<int>(m.size());
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j)
      if (i != j) b.Add(t, m[i], m[j], bytes, reduced);
  return 1;
}

// p - 1 steps in which every member sends `bytes` to its ring successor (`reduced` of them reduced).
int RingSteps(Builder& b, const Members& m, double bytes, double reduced, int t) {
  const int p = static_cast<int>(m.size());
  for (int s = 0; s < p - 1; ++s)
    for (int i = 0; i < p; ++i) b.Add(t + s, m[i], m[(i + 1) % p], bytes, reduced);
  return p - 1;
}

// Reduce-scatter of an n-byte buffer: every member ends with n/p reduced bytes.
int GenRS(Builder& b, Algo a, const Members& m, double n, int t) {
  const int p = static_cast<int>(m.size());
  if (p == 1) return 0;
  const double blk = n / p;
  switch (a) {
    case Algo::kMesh:
      return MeshStep(b, m, blk, blk, t);
    case Algo::kHD: {
      const int q = FloorPow2(p);
      int step = t;
      if (q != p) {  // pre-step: the extra members hand their whole buffer to a partner
        for (int i = q; i < p; ++i) b.Add(step, m[i], m[i - q], n, n);
        ++step;
      }
      for (int d = q / 2, j = 1; d >= 1; d /= 2, ++j, ++step)
        for (int i = 0; i < q; ++i) b.Add(step, m[i], m[i ^ d], n / (1 << j), n / (1 << j));
      if (q != p) {  // post-step: the extra members get their block back
        for (int i = q; i < p; ++i) b.Add(step, m[i - q], m[i], n / q, 0);
        ++step;
      }
      return step - t;
    }
    case Algo::kNHR:
    case Algo::kNB: {
      const int k = CeilLog2(p);
      for (int s = 0; s < k; ++s) {
        const int e = a == Algo::kNB ? k - 1 - s : s;  // NB: far first; NHR: near first
        const int d = 1 << e;
        const double bytes = blk * std::min(d, p - d);
        for (int i = 0; i < p; ++i) b.Add(t + s, m[i], m[(i + d) % p], bytes, bytes);
      }
      return k;
    }
    default:  // ring
      return RingSteps(b, m, blk, blk, t);
  }
}

// All-gather into an n-byte buffer: every member contributes n/p.
int GenAG(Builder& b, Algo a, const Members& m, double n, int t) {
  const int p = static_cast<int>(m.size());
  if (p == 1) return 0;
  const double blk = n / p;
  switch (a) {
    case Algo::kMesh:
      return MeshStep(b, m, blk, 0, t);
    case Algo::kHD: {
      const int q = FloorPow2(p);
      int step = t;
      if (q != p) {
        for (int i = q; i < p; ++i) b.Add(step, m[i], m[i - q], blk, 0);
        ++step;
      }
      for (int d = 1; d < q; d *= 2, ++step)
        for (int i = 0; i < q; ++i) b.Add(step, m[i], m[i ^ d], n / q * d, 0);
      if (q != p) {
        for (int i = q; i < p; ++i) b.Add(step, m[i - q], m[i], n, 0);
        ++step;
      }
      return step - t;
    }
    case Algo::kNHR:
    case Algo::kNB: {
      const int k = CeilLog2(p);
      for (int s = 0; s < k; ++s) {
        const int e = a == Algo::kNB ? s : k - 1 - s;
        const int d = 1 << e;
        const double bytes = blk * std::min(d, p - d);
        for (int i = 0; i < p; ++i) b.Add(t + s, m[i], m[(i - d % p + p) % p], bytes, 0);
      }
      return k;
    }
    default:  // ring
      return RingSteps(b, m, blk, 0, t);
  }
}

// Broadcast of n bytes from member r (reduce: the reverse, reducing at each receiver).
int GenRooted(Builder& b, Algo a, const Members& m, int r, double n, int t, bool reduce) {
  const int p = static_cast<int>(m.size());
  if (p == 1) return 0;
  auto rel = [&](int i) { return m[(i + r) % p]; };
  auto add = [&](int step, int from, int to, double bytes, bool reduces) {
    if (reduce)
      b.Add(step, to, from, bytes, reduces ? bytes : 0);
    else
      b.Add(step, from, to, bytes, 0);
  };
  if (a == Algo::kHD) {  // binomial tree: ceil(log2 p) steps of n bytes
    const int k = CeilLog2(p);
    for (int s = 0; s < k; ++s) {
      const int step = reduce ? t + k - 1 - s : t + s;
      for (int i = 0; i < (1 << s) && i + (1 << s) < p; ++i) add(step, rel(i), rel(i + (1 << s)), n, true);
    }
    return k;
  }
  if (a == Algo::kMesh) {  // the root talks to every member at once
    for (int i = 1; i < p; ++i) add(t, rel(0), rel(i), n, true);
    return 1;
  }
  // ring / NHR / NB: scatter from the root then all-gather (reduce: reduce-scatter then gather).
  Members order(static_cast<size_t>(p));
  for (int i = 0; i < p; ++i) order[static_cast<size_t>(i)] = rel(i);
  if (!reduce) {
    for (int i = 1; i < p; ++i) add(t, order[0], order[static_cast<size_t>(i)], n / p, false);
    return 1 + GenAG(b, a, order, n, t + 1);
  }
  const int steps = GenRS(b, a, order, n, t);
  for (int i = 1; i < p; ++i) b.Add(t + steps, order[static_cast<size_t>(i)], order[0], n / p, 0);
  return steps + 1;
}

// Pipeline (two levels): each inter-server ring step overlaps an intra-server transfer of the same
// s/p chunk; one closing intra step. Two passes (reduce-scatter, all-gather) for all-reduce.
int GenPipeline(Builder& b, const Layout& L, double n, int t, int passes, bool first_reduces) {
  const int p0 = L.sizes[0], p1 = L.sizes[1], p = L.ranks;
  const double c = n / p;
  int step = t;
  for (int pass = 0; pass < passes; ++pass) {
    const double red = (pass == 0 && first_reduces) ? c : 0;
    for (int k = 0; k <= p1 - 1; ++k, ++step) {
      for (int r = 0; r < p; ++r) {
        const int local = r % p0, server = r / p0;
        if (k < p1 - 1) b.Add(step, r, ((server + 1) % p1) * p0 + local, c, red);
        if (p0 > 1) b.Add(step, r, server * p0 + (local + 1 + k % (p0 - 1)) % p0, c, red);
      }
    }
  }
  return step - t;
}

template <typename Fn>
int ForEachGroup(const Layout& L, size_t l, Fn&& fn) {
  int used = 0;
  Members m(static_cast<size_t>(L.sizes[l]));
  for (int base = 0; base < L.ranks; ++base) {
    if (L.Coord(base, l) != 0) continue;
    for (int i = 0; i < L.sizes[l]; ++i) m[static_cast<size_t>(i)] = base + i * L.stride[l];
    used = std::max(used, fn(m, base));
  }
  return used;
}

bool SameBelow(const Layout& L, int a, int b, size_t l) {
  for (size_t k = 0; k < l; ++k)
    if (L.Coord(a, k) != L.Coord(b, k)) return false;
  return true;
}

// Expands the collective into `b`, step by step.
void Expand(Builder& b, const Layout& L, const CollectiveSpec& spec, const Plan& plan) {
  const size_t levels = L.sizes.size();
  const double n = spec.bytes;
  int t = 0;
  std::vector<double> data(levels + 1, n);  // data[l]: per-rank buffer entering level l (hierarchical RS)
  for (size_t l = 0; l < levels; ++l) data[l + 1] = data[l] / L.sizes[l];
  auto algo = [&](size_t l) { return plan.levels[std::min(l, plan.levels.size() - 1)]; };

  switch (spec.op) {
    case Op::kAllReduce:
    case Op::kReduceScatter:
    case Op::kAllGather: {
      if (plan.levels[0] == Algo::kPipeline) {
        const int passes = spec.op == Op::kAllReduce ? 2 : 1;
        t += GenPipeline(b, L, n, t, passes, spec.op != Op::kAllGather);
        break;
      }
      if (plan.levels[0] == Algo::kReduceBcast) {  // one server: reduce into rank 0, then copy out
        t += ForEachGroup(L, 0, [&](const Members& m, int) {
          const int k = GenRooted(b, Algo::kMesh, m, 0, n, t, true);
          return k + GenRooted(b, Algo::kMesh, m, 0, n, t + k, false);
        });
        break;
      }
      const bool rs = spec.op != Op::kAllGather;
      const bool ag = spec.op != Op::kReduceScatter;
      const size_t top = levels - 1;
      if (rs) {
        const size_t last = spec.op == Op::kAllReduce ? top : levels;
        for (size_t l = 0; l < last; ++l)
          t += ForEachGroup(L, l, [&](const Members& m, int) { return GenRS(b, algo(l), m, data[l], t); });
      }
      if (spec.op == Op::kAllReduce)
        t += ForEachGroup(L, top, [&](const Members& m, int) {
          const int k = GenRS(b, algo(top), m, data[top], t);
          return k + GenAG(b, algo(top), m, data[top], t + k);
        });
      if (ag) {
        const size_t first = spec.op == Op::kAllReduce ? top : levels;
        for (size_t l = first; l-- > 0;)
          t += ForEachGroup(L, l, [&](const Members& m, int) { return GenAG(b, algo(l), m, data[l], t); });
      }
      break;
    }
    case Op::kBroadcast:
    case Op::kReduce: {
      const bool reduce = spec.op == Op::kReduce;
      for (size_t i = 0; i < levels; ++i) {
        const size_t l = reduce ? i : levels - 1 - i;
        t += ForEachGroup(L, l, [&](const Members& m, int base) {
          if (!SameBelow(L, base, spec.root, l)) return 0;
          return GenRooted(b, algo(l), m, L.Coord(spec.root, l), n, t, reduce);
        });
      }
      break;
    }
    case Op::kAllToAll:
    case Op::kAllToAllV: {
      const int p = L.ranks;
      auto bytes = [&](int i, int j) {
        return spec.alltoallv.empty() ? n / p
                                      : spec.alltoallv[static_cast<size_t>(i)][static_cast<size_t>(j)];
      };
      if (plan.levels[0] == Algo::kMesh) {
        for (int i = 0; i < p; ++i)
          for (int j = 0; j < p && !b.overflow; ++j)
            if (i != j) b.Add(0, i, j, bytes(i, j), 0);
      } else {
        for (int k = 1; k < p && !b.overflow; ++k)
          for (int i = 0; i < p; ++i) b.Add(k - 1, i, (i + k) % p, bytes(i, (i + k) % p), 0);
      }
      break;
    }
    case Op::kSendRecv:
      b.Add(0, spec.root, spec.peer, n, 0);
      break;
  }
}

}  // namespace

Expected<Schedule> BuildSchedule(const Layout& L, const CollectiveSpec& spec, const Plan& plan) {
  Schedule s;
  s.ranks = L.ranks;
  Builder counted(s);
  Expand(counted, L, spec, plan);
  if (counted.overflow)
    return Status::Unsupported(
        fmt::format("{} on {} ranks expands to more than {} transfers; use --sim analytical", OpName(spec.op),
                    L.ranks, kMaxTransfers));
  std::vector<size_t> place(counted.per_step.size(), 0);
  for (size_t k = 1; k < place.size(); ++k) place[k] = place[k - 1] + counted.per_step[k - 1];
  s.transfers.resize(counted.total);
  Builder placed(s, &place);
  Expand(placed, L, spec, plan);
  return s;
}

}  // namespace npugap::comm
