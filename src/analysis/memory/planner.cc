#include "npugap/analysis/memory/planner.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

namespace npugap::analysis::memory {
namespace {

bool Overlap(const TensorUse& a, const TensorUse& b) { return a.first <= b.last && b.first <= a.last; }

// Places the uses in `order`, each into the smallest gap among the already placed buffers whose
// lifetimes overlap it, else above them.
Placement PlaceInOrder(const std::vector<TensorUse>& uses, const std::vector<size_t>& order) {
  Placement p;
  p.offsets.assign(uses.size(), 0);
  // Placed buffers by the steps they are live at, so that finding the ones a buffer overlaps
  // costs its lifetime, not the number placed (5,000-node graphs plan in milliseconds).
  int steps = 0;
  for (const TensorUse& u : uses) steps = std::max(steps, u.last + 1);
  std::vector<std::vector<size_t>> live_at(static_cast<size_t>(steps));
  std::vector<size_t> seen(uses.size(), SIZE_MAX);
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (size_t i : order) {
    const TensorUse& u = uses[i];
    busy.clear();
    for (int s = std::max(u.first, 0); s <= u.last; ++s) {
      for (size_t j : live_at[static_cast<size_t>(s)]) {
        if (seen[j] == i) continue;
        seen[j] = i;
        busy.emplace_back(p.offsets[j], p.offsets[j] + uses[j].bytes);
      }
    }
    std::sort(busy.begin(), busy.end());
    // Walk the gaps between overlapping buffers in address order; keep the smallest that fits.
    int64_t best = -1, best_gap = 0, cursor = 0;
    for (const auto& [begin, end] : busy) {
      const int64_t gap = begin - cursor;
      if (gap >= u.bytes && (best < 0 || gap < best_gap)) {
        best = cursor;
        best_gap = gap;
      }
      cursor = std::max(cursor, end);
    }
    p.offsets[i] = best >= 0 ? best : cursor;
    p.peak_bytes = std::max(p.peak_bytes, p.offsets[i] + u.bytes);
    for (int s = std::max(u.first, 0); s <= u.last; ++s) live_at[static_cast<size_t>(s)].push_back(i);
  }
  return p;
}

// Pisarchyk & Lee's greedy-by-breadth (anchors §2.5 [S26]): steps by the bytes live at them,
// widest first; at each step its not yet ordered buffers, largest first.
std::vector<size_t> BreadthOrder(const std::vector<TensorUse>& uses) {
  int steps = 0;
  for (const TensorUse& u : uses) steps = std::max(steps, u.last + 1);
  std::vector<std::vector<size_t>> live_at(static_cast<size_t>(steps));
  std::vector<int64_t> breadth(static_cast<size_t>(steps), 0);
  for (size_t i = 0; i < uses.size(); ++i) {
    for (int s = std::max(uses[i].first, 0); s <= uses[i].last; ++s) {
      live_at[static_cast<size_t>(s)].push_back(i);
      breadth[static_cast<size_t>(s)] += uses[i].bytes;
    }
  }
  std::vector<size_t> by_breadth(static_cast<size_t>(steps));
  std::iota(by_breadth.begin(), by_breadth.end(), 0);
  std::stable_sort(by_breadth.begin(), by_breadth.end(),
                   [&](size_t a, size_t b) { return breadth[a] > breadth[b]; });
  std::vector<size_t> order;
  std::vector<bool> taken(uses.size(), false);
  for (size_t s : by_breadth) {
    auto& at = live_at[s];
    std::stable_sort(at.begin(), at.end(), [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; });
    for (size_t i : at) {
      if (!taken[i]) order.push_back(i);
      taken[i] = true;
    }
  }
  for (size_t i = 0; i < uses.size(); ++i) {
    if (!taken[i]) order.push_back(i);  // lifetimes before step 0 (none from the analyses)
  }
  return order;
}

}  // namespace

Placement GreedyBySizePlanner::Assign(const std::vector<TensorUse>& uses) const {
  // Like XLA's ChooseBestHeapAlgorithm (anchors §2.5): the same best-fit placement under three
  // orders, keeping the smallest arena. Size first is TFLite's GREEDY_BY_SIZE; size x lifetime
  // ("spatial x temporal") and longest-lived first help where one long-lived skip tensor would
  // otherwise split the arena (ConvNeXt's residual stream).
  const auto duration = [&](size_t i) { return static_cast<int64_t>(uses[i].last - uses[i].first + 1); };
  const std::vector<std::function<bool(size_t, size_t)>> orders = {
      [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; },
      [&](size_t a, size_t b) {
        const __int128 ka = static_cast<__int128>(uses[a].bytes) * duration(a);
        const __int128 kb = static_cast<__int128>(uses[b].bytes) * duration(b);
        return ka > kb;
      },
      [&](size_t a, size_t b) {
        return duration(a) != duration(b) ? duration(a) > duration(b) : uses[a].bytes > uses[b].bytes;
      },
  };
  std::vector<std::vector<size_t>> candidates;
  for (const auto& before : orders) {
    std::vector<size_t> order(uses.size());
    std::iota(order.begin(), order.end(), 0);
    // Ties by earlier start, so the result does not depend on the sort.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (before(a, b)) return true;
      if (before(b, a)) return false;
      return uses[a].first < uses[b].first;
    });
    candidates.push_back(std::move(order));
  }
  candidates.push_back(BreadthOrder(uses));
  Placement best;
  size_t best_candidate = 0;
  for (size_t c = 0; c < candidates.size(); ++c) {
    Placement p = PlaceInOrder(uses, candidates[c]);
    if (best.offsets.empty() || p.peak_bytes < best.peak_bytes) {
      best = std::move(p);
      best_candidate = c;
    }
  }
  if (uses.empty()) {
    best.offsets.clear();
    return best;
  }
  // Refinement, squeaky-wheel style (Joslin & Clements, JAIR 10, 1999; like TVM USMP's hill_climb,
  // anchors §2.5 [S28], it searches over placement orders): the buffers that end at the arena's
  // top are the ones the order placed badly, so they move to the front and the placement is redone.
  // ConvNeXt needs it: size-first order packs each block's 4x-wide MLP tensors at the bottom, so
  // consecutive residual-stream tensors (alive across a whole block, overlapping each other at
  // the Add) stack up above them; placed first, they alternate between the bottom and the top of
  // the arena and the plan reaches the lower bound (docs/memory.md). Stops at the lower bound
  // (no plan can beat it), when a round changes nothing, or after `refine_rounds_` rounds.
  const int64_t bound = LowerBound(uses);
  std::vector<size_t> order = std::move(candidates[best_candidate]);
  Placement current = best;
  for (int round = 0; round < refine_rounds_ && best.peak_bytes > bound; ++round) {
    const auto at_top = [&](size_t i) { return current.offsets[i] + uses[i].bytes == current.peak_bytes; };
    // Already in front: the next round would place exactly as this one.
    if (std::is_partitioned(order.begin(), order.end(), at_top)) break;
    std::stable_partition(order.begin(), order.end(), at_top);
    current = PlaceInOrder(uses, order);
    if (current.peak_bytes < best.peak_bytes) best = current;
  }
  return best;
}

Placement NaivePlanner::Assign(const std::vector<TensorUse>& uses) const {
  Placement p;
  p.offsets.reserve(uses.size());
  for (const TensorUse& u : uses) {
    p.offsets.push_back(p.peak_bytes);
    p.peak_bytes += u.bytes;
  }
  return p;
}

std::unique_ptr<Planner> MakePlanner(std::string_view name) {
  if (name == "greedy-by-size") return std::make_unique<GreedyBySizePlanner>();
  if (name == "naive") return std::make_unique<NaivePlanner>();
  return nullptr;
}

int64_t LowerBound(const std::vector<TensorUse>& uses) {
  // Sweep: +bytes at first, -bytes after last.
  std::vector<std::pair<int, int64_t>> events;
  events.reserve(uses.size() * 2);
  for (const TensorUse& u : uses) {
    events.emplace_back(u.first, u.bytes);
    events.emplace_back(u.last + 1, -u.bytes);
  }
  std::sort(events.begin(), events.end());  // at one step the frees (negative) come first
  int64_t live = 0, peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

bool PlacementValid(const std::vector<TensorUse>& uses, const Placement& placement) {
  if (placement.offsets.size() != uses.size()) return false;
  for (size_t i = 0; i < uses.size(); ++i) {
    if (placement.offsets[i] < 0 || placement.offsets[i] + uses[i].bytes > placement.peak_bytes) return false;
    for (size_t j = i + 1; j < uses.size(); ++j) {
      if (!Overlap(uses[i], uses[j])) continue;
      const int64_t a0 = placement.offsets[i], a1 = a0 + uses[i].bytes;
      const int64_t b0 = placement.offsets[j], b1 = b0 + uses[j].bytes;
      if (a0 < b1 && b0 < a1) return false;
    }
  }
  return true;
}

}  // namespace npugap::analysis::memory
