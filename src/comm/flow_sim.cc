// Flow-level simulation: every transfer is a flow over its path; active flows share link
// capacities max-min fairly (progressive filling), re-solved only when a flow arrives or
// completes. A rank starts its next step when all its transfers of the current step are done and
// the bytes it received are reduced at γ; a transfer starts when both its ranks are ready.
#include <algorithm>
#include <limits>
#include <queue>

#include "npugap/comm/simulate.h"

namespace npugap::comm {
namespace {

struct Event {
  double t;
  int32_t kind;  // 0: rank ready for its next step, 1: flow becomes active (after its latency)
  int32_t id;
  bool operator>(const Event& o) const { return t > o.t; }
};

class FlowSim {
 public:
  FlowSim(const Network& net, const Schedule& s, double gamma, double merge)
      : net_(net), s_(s), gamma_(gamma), merge_(merge) {
    const size_t nt = s.transfers.size();
    const size_t nr = static_cast<size_t>(s.ranks);
    paths_.resize(nt);
    remaining_.resize(nt);
    rate_.assign(nt, 0);
    finish_.resize(nt);
    ready_count_.assign(nt, 0);
    // Per rank, its transfers in step order (CSR).
    offset_.assign(nr + 1, 0);
    for (const Transfer& t : s.transfers) {
      ++offset_[static_cast<size_t>(t.src) + 1];
      ++offset_[static_cast<size_t>(t.dst) + 1];
    }
    for (size_t r = 0; r < nr; ++r) offset_[r + 1] += offset_[r];
    rank_tx_.resize(offset_[nr]);
    std::vector<size_t> fill(offset_.begin(), offset_.end() - 1);
    for (size_t i = 0; i < nt; ++i) {
      rank_tx_[fill[static_cast<size_t>(s.transfers[i].src)]++] = static_cast<int32_t>(i);
      rank_tx_[fill[static_cast<size_t>(s.transfers[i].dst)]++] = static_cast<int32_t>(i);
    }
    pos_.assign(offset_.begin(), offset_.end() - 1);
    pending_.assign(nr, 0);
    reduce_acc_.assign(nr, 0);
    rank_finish_.assign(nr, 0);
    const size_t nl = net.links().size();
    link_count_.assign(nl, 0);
    link_rem_.assign(nl, 0);
    link_start_.assign(nl + 1, 0);
    link_fill_.assign(nl, 0);
  }

  // Events within one window after the next event are handled together at the window's end:
  // completions keep their exact finish times, and flows that started inside the window are
  // credited, after the solve, with the bytes their new rate would have moved since their start.
  FlowSimResult Run(const std::vector<double>& start) {
    for (int r = 0; r < s_.ranks; ++r)
      events_.push({start.empty() ? 0.0 : start[static_cast<size_t>(r)], 0, r});
    double now = 0;
    double next_done = kInf;
    std::vector<std::pair<int32_t, double>> started;
    while (!events_.empty() || !active_.empty()) {
      const double tq = events_.empty() ? kInf : events_.top().t;
      const double t = std::max(now, std::min(tq, next_done));
      const double tb = t + merge_ * t;
      for (int32_t f : active_)
        remaining_[static_cast<size_t>(f)] -= rate_[static_cast<size_t>(f)] * (tb - now);
      now = tb;
      bool changed = false;
      for (size_t i = 0; i < active_.size();) {
        const int32_t f = active_[i];
        if (finish_[static_cast<size_t>(f)] <= tb) {
          active_[i] = active_.back();
          active_.pop_back();
          Done(f, finish_[static_cast<size_t>(f)]);
          changed = true;
        } else {
          ++i;
        }
      }
      started.clear();
      while (!events_.empty() && events_.top().t <= tb) {
        const Event e = events_.top();
        events_.pop();
        if (e.kind == 0) {
          RankReady(e.id, e.t);
        } else {
          active_.push_back(e.id);
          rate_[static_cast<size_t>(e.id)] = 0;
          started.push_back({e.id, e.t});
          changed = true;
        }
      }
      if (!changed) continue;
      next_done = Solve(now);
      for (auto [f, ta] : started) {
        const size_t fi = static_cast<size_t>(f);
        remaining_[fi] -= rate_[fi] * (now - ta);
        finish_[fi] = now + remaining_[fi] / std::max(rate_[fi], 1e-300);
        next_done = std::min(next_done, finish_[fi]);
      }
    }
    FlowSimResult result;
    result.solves = solves_;
    result.rank_finish_s = rank_finish_;
    for (double f : rank_finish_) result.time_s = std::max(result.time_s, f);
    return result;
  }

  static constexpr double kInf = std::numeric_limits<double>::infinity();

 private:
  // Caps are the capacities of private links, so only a few distinct values occur: a counting
  // sort over them is much cheaper than a comparison sort of every flow.
  void SortCaps() {
    distinct_.clear();
    for (const auto& c : caps_) {
      if (std::find(distinct_.begin(), distinct_.end(), c.first) == distinct_.end())
        distinct_.push_back(c.first);
      if (distinct_.size() > 16) {
        std::sort(caps_.begin(), caps_.end());
        return;
      }
    }
    std::sort(distinct_.begin(), distinct_.end());
    sorted_caps_.clear();
    for (double v : distinct_)
      for (const auto& c : caps_)
        if (c.first == v) sorted_caps_.push_back(c);
    caps_.swap(sorted_caps_);
  }

  int32_t StepAt(size_t r) const {
    return pos_[r] < offset_[r + 1] ? s_.transfers[static_cast<size_t>(rank_tx_[pos_[r]])].step : -1;
  }

  void RankReady(int32_t rank, double t) {
    const size_t r = static_cast<size_t>(rank);
    const int32_t step = StepAt(r);
    if (step < 0) {
      rank_finish_[r] = t;
      return;
    }
    for (size_t k = pos_[r]; k < offset_[r + 1]; ++k) {
      const int32_t id = rank_tx_[k];
      const Transfer& tr = s_.transfers[static_cast<size_t>(id)];
      if (tr.step != step) break;
      ++pending_[r];
      if (++ready_count_[static_cast<size_t>(id)] == 2) {
        const Path& p = paths_[static_cast<size_t>(id)] = net_.Route(tr.src, tr.dst);
        remaining_[static_cast<size_t>(id)] = tr.bytes;
        events_.push({t + p.latency_s, 1, id});
      }
    }
  }

  void Done(int32_t id, double t) {
    const Transfer& tr = s_.transfers[static_cast<size_t>(id)];
    rate_[static_cast<size_t>(id)] = 0;
    reduce_acc_[static_cast<size_t>(tr.dst)] += tr.reduce_bytes;
    for (int32_t rank : {tr.src, tr.dst}) {
      const size_t r = static_cast<size_t>(rank);
      if (--pending_[r] > 0) continue;
      const int32_t step = StepAt(r);
      while (pos_[r] < offset_[r + 1] && s_.transfers[static_cast<size_t>(rank_tx_[pos_[r]])].step == step)
        ++pos_[r];
      const double reduce = reduce_acc_[r] / gamma_;
      reduce_acc_[r] = 0;
      events_.push({t + reduce, 0, rank});
    }
  }

  // Progressive filling: repeatedly the smallest of (a shared link's fair share, a flow's own cap)
  // fixes rates. Links carrying one flow only cap that flow, so they stay out of the heap. Shares
  // only grow as flows freeze, so a stale heap entry is re-pushed when popped.
  double Solve(double now) {
    ++solves_;
    used_.clear();
    for (int32_t f : active_) {
      const Path& p = paths_[static_cast<size_t>(f)];
      for (int32_t i = 0; i < p.count; ++i) {
        const size_t l = static_cast<size_t>(p.links[static_cast<size_t>(i)]);
        if (link_count_[l]++ == 0) used_.push_back(static_cast<int32_t>(l));
      }
    }
    const auto& links = net_.links();
    size_t total = 0;
    heap_.clear();
    for (int32_t l : used_) {
      const size_t lu = static_cast<size_t>(l);
      link_rem_[lu] = links[lu].capacity;
      if (link_count_[lu] < 2) continue;
      link_start_[lu] = total;
      link_fill_[lu] = 0;
      total += static_cast<size_t>(link_count_[lu]);
      heap_.push_back({link_rem_[lu] / link_count_[lu], l});
    }
    link_flows_.resize(total);
    caps_.clear();
    for (int32_t f : active_) {
      const Path& p = paths_[static_cast<size_t>(f)];
      double cap = kInf;
      for (int32_t i = 0; i < p.count; ++i) {
        const size_t l = static_cast<size_t>(p.links[static_cast<size_t>(i)]);
        if (link_count_[l] < 2)
          cap = std::min(cap, links[l].capacity);
        else
          link_flows_[link_start_[l] + static_cast<size_t>(link_fill_[l]++)] = f;
      }
      rate_[static_cast<size_t>(f)] = -1;  // unfrozen
      caps_.push_back({cap, f});
    }
    SortCaps();
    std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
    size_t next_cap = 0;
    auto freeze = [&](int32_t f, double r) {
      rate_[static_cast<size_t>(f)] = r;
      const Path& p = paths_[static_cast<size_t>(f)];
      for (int32_t i = 0; i < p.count; ++i) {
        const size_t l2 = static_cast<size_t>(p.links[static_cast<size_t>(i)]);
        link_rem_[l2] -= r;
        --link_count_[l2];
      }
    };
    while (true) {
      while (next_cap < caps_.size() && rate_[static_cast<size_t>(caps_[next_cap].second)] >= 0) ++next_cap;
      const double cap = next_cap < caps_.size() ? caps_[next_cap].first : kInf;
      if (heap_.empty() || cap <= heap_.front().first) {
        if (next_cap == caps_.size()) break;
        freeze(caps_[next_cap].second, cap);
        continue;
      }
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      const auto [share, l] = heap_.back();
      heap_.pop_back();
      const size_t lu = static_cast<size_t>(l);
      if (link_count_[lu] == 0) continue;
      const double current = std::max(0.0, link_rem_[lu]) / link_count_[lu];
      if (current > share * (1 + 1e-12)) {
        heap_.push_back({current, l});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        continue;
      }
      if (cap < current) {  // a flow's own cap comes first after all
        heap_.push_back({current, l});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        freeze(caps_[next_cap].second, cap);
        continue;
      }
      const size_t begin = link_start_[lu], end = begin + static_cast<size_t>(link_fill_[lu]);
      for (size_t k = begin; k < end; ++k)
        if (rate_[static_cast<size_t>(link_flows_[k])] < 0) freeze(link_flows_[k], current);
    }
    for (int32_t l : used_) link_count_[static_cast<size_t>(l)] = 0;
    double next = kInf;
    for (int32_t f : active_) {
      const size_t fi = static_cast<size_t>(f);
      finish_[fi] = remaining_[fi] <= 0 ? now : now + remaining_[fi] / std::max(rate_[fi], 1e-300);
      next = std::min(next, finish_[fi]);
    }
    return next;
  }

  const Network& net_;
  const Schedule& s_;
  double gamma_, merge_;
  std::vector<Path> paths_;
  std::vector<double> remaining_, rate_, finish_;
  std::vector<uint8_t> ready_count_;
  std::vector<size_t> offset_, pos_;
  std::vector<int32_t> rank_tx_, pending_;
  std::vector<double> reduce_acc_, rank_finish_;
  std::vector<int32_t> active_, used_, link_count_, link_fill_, link_flows_;
  std::vector<double> link_rem_;
  std::vector<size_t> link_start_;
  std::vector<std::pair<double, int32_t>> heap_, caps_, sorted_caps_;
  std::vector<double> distinct_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  int64_t solves_ = 0;
};

}  // namespace

FlowSimResult SimulateFlows(const Network& net, const Schedule& schedule, double reduce_bytes_per_s,
                            const std::vector<double>& start_s, double merge_window_rel) {
  FlowSim sim(net, schedule, reduce_bytes_per_s, merge_window_rel);
  return sim.Run(start_s);
}

}  // namespace npugap::comm
