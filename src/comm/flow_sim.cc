// Flow-level simulation: every transfer is a flow over its path; active flows share link
// capacities max-min fairly (progressive filling), re-solved only when a flow arrives or
// completes. A rank starts its next step when all its transfers of the current step are done and
// the bytes it received are reduced at γ; a transfer starts when both its ranks are ready.
//
// Speed (docs/benchmarks.md): a max-min allocation splits over the connected components of the
// graph "flows joined by the links they share", so an arrival or completion only re-solves the
// component it touches. Links stay indexed by flow across events (no per-solve rebuild), rates
// and remaining bytes are brought up to date lazily, and completions sit in an indexed heap
// (one entry per active flow, moved in place on a rate change) instead of a scan over every
// active flow. Per-link flow lists are intrusive linked lists (no allocation per event), and
// progressive filling goes level by level (rates take few distinct values).
#include <algorithm>
#include <array>
#include <limits>
#include <memory>

#include "completion_heap.h"
#include "event_queue.h"

#include "npugap/comm/simulate.h"

namespace npugap::comm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int32_t kHops = 6;  // Path::links' capacity
static_assert(std::tuple_size_v<decltype(Path::links)> == kHops);
constexpr size_t kPrefetchFar = 8, kPrefetchNear = 4, kPrefetchNext = 2;  // events ahead
constexpr int kScanPasses = 48;  // level-by-level filling passes before the heap takes over

struct Event {
  double t;
  int32_t kind;  // 0: rank ready for its next step, 1: flow becomes active (after its latency)
  int32_t id;
};

// One active flow: a record taken from a pool when both ranks of a transfer reach its step and
// given back (after the merge window it finished in) when it completes, so that only as many
// records exist as flows are ever active at once. The records a solve walks then stay few and
// warm in cache instead of being spread over one per transfer (590K at 16,384 ranks, 75 MB).
// Everything the hot loops read about the flow sits in two adjacent cache lines: a solve touches
// every flow of a component, and parallel arrays cost a cache miss per array per flow. The flow's
// nodes in the per-link lists live here too, so walking a link's list reads the states it needs.
struct alignas(64) FlowState {
  double rem = 0;    // bytes left at t_upd
  double rate = 0;   // bytes/s; -1 inactive (done), -2 unfrozen during a solve
  double t_upd = 0;  // when rem was last brought up to date
  std::array<int32_t, kHops> links{};
  int32_t count = 0;     // hops used in links
  uint32_t mark = 0;     // component stamp
  int32_t transfer = 0;  // the schedule's transfer it carries
  // Second cache line: what list walks and the completion read.
  // Node flow * kHops + hop of the list of links[hop]: the next and previous nodes (-1: none).
  std::array<int32_t, kHops> next{};
  std::array<int32_t, kHops> prev{};
  int32_t src = 0, dst = 0;  // the transfer's, copied so that its completion reads no other record
  double reduce_bytes = 0;
};
static_assert(sizeof(FlowState) == 128);

// The shape of one transfer of the last schedule (who, when, which queue pair), kept to recognise
// a schedule of the same shape; the run itself reads the schedule's own 32-byte transfers.
struct TransferShape {
  int32_t src = 0, dst = 0, step = 0, qp = 0;
};

// A rank's progress through its transfers (rank_tx_[pos, end)), in one record: a rank event
// reads all of it, and separate arrays cost a cache miss each at 16,384 ranks.
struct RankState {
  uint32_t pos = 0;       // its first transfer not yet done
  uint32_t end = 0;       // one past its last transfer
  int32_t pending = 0;    // transfers of the current step not yet done
  uint32_t step_end = 0;  // one past the current step's transfers (set when the step starts), so
                          // that finishing the step need not walk rank_tx_ again (a cache miss)
  double reduce_acc = 0;  // bytes received in the current step, to reduce
  double finish = 0;      // when it finished its last step
};
static_assert(sizeof(RankState) == 32);

// A rank's transfers in step order, with the step beside the id so that walking a rank's steps
// does not touch the transfers themselves.
struct RankTransfer {
  int32_t id;
  int32_t step;
};

// The same for one link (its static capacity included): a solve reads every link of a component.
struct alignas(32) LinkState {
  double capacity = 0;
  double rem = 0;        // capacity not yet given to frozen flows during a solve
  int32_t head = -1;     // first (flow, hop) node of its active flows
  int32_t count = 0;     // active flows
  int32_t unfrozen = 0;  // flows still unfrozen during a solve
  uint32_t mark = 0;     // component stamp
};
static_assert(sizeof(LinkState) == 32);

struct Share {
  double share;
  int32_t link;
  bool operator>(const Share& o) const { return share > o.share; }
};

// A flow's cap (the smallest of its links that carry it alone). Ordered by cap, then by transfer,
// which is what sorting (cap, transfer id) pairs gave before flows lived in pooled records.
struct Cap {
  double cap;
  int32_t transfer;
  int32_t flow;
  bool operator<(const Cap& o) const { return cap < o.cap || (cap == o.cap && transfer < o.transfer); }
};

class FlowSim {
 public:
  FlowSim(const Network& net, double gamma, double merge) : net_(net), gamma_(gamma), merge_(merge) {
    links_.resize(net.links().size());
    for (size_t l = 0; l < links_.size(); ++l) links_[l].capacity = net.links()[l].capacity;
  }

  // A schedule with the same transfers as the previous one (HCCL_BUFFSIZE rounds differ only in
  // their bytes) keeps the transfer records, the per-rank index and their memory; any other
  // schedule rebuilds them. Either way the run starts from the state a fresh simulator has: links
  // are empty again after a run and every flow record is back in the pool (every flow finishes),
  // and component stamps only grow, so old marks never match a new stamp.
  void Load(const Schedule& s) {
    if (!SameTransfers(s)) Build(s);
    tx_ = s.transfers.data();
    for (size_t r = 0; r < rank_.size(); ++r)
      rank_[r] = {static_cast<uint32_t>(offset_[r]), static_cast<uint32_t>(offset_[r + 1]), 0, 0, 0.0, 0.0};
    std::fill(ready_.begin(), ready_.end(), 0);
    solves_ = 0;
    window_end_ = -1;
  }

  // Events within one window after the next event are handled together at the window's end:
  // completions keep their exact finish times, and flows that started inside the window are
  // credited, after the solve, with the bytes their new rate would have moved since their start.
  FlowSimResult Run(const std::vector<double>& start) {
    for (int r = 0; r < ranks_; ++r)
      events_.push({start.empty() ? 0.0 : start[static_cast<size_t>(r)], 0, r});
    double now = 0;
    while (!events_.empty() || active_ > 0) {
      const double tq = events_.empty() ? kInf : events_.top().t;
      const double td = done_.empty() ? kInf : done_.top_t();
      const double t = std::max(now, std::min(tq, td));
      const double tb = t + merge_ * t;
      now = tb;
      window_end_ = tb;
      seeds_.clear();
      Release();
      // Handling a completion never touches the completion heap (only a solve does), so the
      // window's completions come out of it first, in the heap's order, and are then handled in
      // that order while the records of those a few places ahead are loaded (no effect on the
      // result: the same operations in the same order, only the cache misses overlap).
      ending_.clear();
      defer_ = true;
      while (!done_.empty() && done_.top_t() <= tb) {
        ending_.push_back({done_.top_t(), 0, done_.top_flow()});
        done_.Pop();
      }
      for (size_t i = 0; i < ending_.size(); ++i) {
        PrefetchAhead(ending_, i);
        Finish(ending_[i].id, ending_[i].t);
      }
      defer_ = false;
      // Flows that the completions started inside the window join their links now, in the order
      // they were started, with their links loaded ahead. The per-link lists come out as before
      // (no completion in between adds to a list); only the seed order can differ, and
      // CommFlowPins shows that the pinned times and solve counts did not move.
      arriving_.swap(deferred_);
      deferred_.clear();
      for (size_t i = 0; i < arriving_.size(); ++i) {
        PrefetchEventAhead(i);
        Activate(arriving_[i].id, arriving_[i].t);
        seeds_.push_back(arriving_[i].id);
      }
      // Handling an event only queues events after the window, so the window's events come out
      // first too, and are handled in that order with their records loaded ahead. (Events of
      // equal time can come out of the queue in another order than when it was popped between
      // them; CommFlowPins shows the pinned times and solve counts did not move.)
      arriving_.clear();
      while (!events_.empty() && events_.top().t <= tb) {
        arriving_.push_back(events_.top());
        events_.pop();
      }
      for (size_t i = 0; i < arriving_.size(); ++i) {
        PrefetchEventAhead(i);
        const Event e = arriving_[i];
        if (e.kind == 0) {
          RankReady(e.id, e.t);
        } else {
          Activate(e.id, e.t);
          seeds_.push_back(e.id);
        }
      }
      if (seeds_.empty()) continue;
      ++solves_;
      Component();
      Solve(now);
    }
    Release();
    FlowSimResult result;
    result.solves = solves_;
    result.rank_finish_s.reserve(rank_.size());
    for (const RankState& r : rank_) {
      result.rank_finish_s.push_back(r.finish);
      result.time_s = std::max(result.time_s, r.finish);
    }
    return result;
  }

 private:
  // Prefetches for handling events[i]: the flow record of the one kPrefetchFar ahead, and the
  // link and rank records of the one kPrefetchNear ahead (whose flow record is in cache by now).
  void PrefetchAhead(const std::vector<Event>& events, size_t i) {
    if (i + kPrefetchFar < events.size()) {
      const FlowState& far = flows_[static_cast<size_t>(events[i + kPrefetchFar].id)];
      __builtin_prefetch(&far);
      __builtin_prefetch(&far.next);
    }
    if (i + kPrefetchNear < events.size()) {
      const FlowState& near = flows_[static_cast<size_t>(events[i + kPrefetchNear].id)];
      for (int32_t h = 0; h < near.count; ++h)
        __builtin_prefetch(&links_[static_cast<size_t>(near.links[static_cast<size_t>(h)])]);
      __builtin_prefetch(&rank_[static_cast<size_t>(near.src)]);
      __builtin_prefetch(&rank_[static_cast<size_t>(near.dst)]);
      // Leaving a list writes the neighbours' nodes.
      for (int32_t h = 0; h < near.count; ++h) {
        const int32_t prev = near.prev[static_cast<size_t>(h)], next = near.next[static_cast<size_t>(h)];
        if (prev >= 0) __builtin_prefetch(&flows_[static_cast<size_t>(prev / kHops)].next);
        if (next >= 0) __builtin_prefetch(&flows_[static_cast<size_t>(next / kHops)].next);
      }
    }
  }

  // The same for arriving_[i]: a rank's record and then its transfer index, or a flow's record
  // and then its links.
  void PrefetchEventAhead(size_t i) {
    if (i + kPrefetchFar < arriving_.size()) {
      const Event& far = arriving_[i + kPrefetchFar];
      if (far.kind == 0) {
        __builtin_prefetch(&rank_[static_cast<size_t>(far.id)]);
      } else {
        __builtin_prefetch(&flows_[static_cast<size_t>(far.id)]);
        __builtin_prefetch(&flows_[static_cast<size_t>(far.id)].next);
      }
    }
    if (i + kPrefetchNear < arriving_.size()) {
      const Event& near = arriving_[i + kPrefetchNear];
      if (near.kind == 0) {
        const RankState& r = rank_[static_cast<size_t>(near.id)];
        if (r.pos < r.end) __builtin_prefetch(&rank_tx_[r.pos]);
      } else {
        const FlowState& fs = flows_[static_cast<size_t>(near.id)];
        for (int32_t h = 0; h < fs.count; ++h)
          __builtin_prefetch(&links_[static_cast<size_t>(fs.links[static_cast<size_t>(h)])]);
      }
    }
    // Joining a list writes the node of the flow at its head.
    if (i + kPrefetchNext < arriving_.size() && arriving_[i + kPrefetchNext].kind == 1) {
      const FlowState& fs = flows_[static_cast<size_t>(arriving_[i + kPrefetchNext].id)];
      for (int32_t h = 0; h < fs.count; ++h) {
        const int32_t head = links_[static_cast<size_t>(fs.links[static_cast<size_t>(h)])].head;
        if (head >= 0) __builtin_prefetch(&flows_[static_cast<size_t>(head / kHops)].next);
      }
    }
  }

  bool SameTransfers(const Schedule& s) const {
    if (s.ranks != ranks_ || s.transfers.size() != shape_.size()) return false;
    for (size_t i = 0; i < shape_.size(); ++i) {
      const Transfer& t = s.transfers[i];
      const TransferShape& was = shape_[i];
      if (t.src != was.src || t.dst != was.dst || t.step != was.step || t.qp != was.qp) return false;
    }
    return true;
  }

  void Build(const Schedule& s) {
    const size_t nt = s.transfers.size();
    const size_t nr = static_cast<size_t>(s.ranks);
    ranks_ = s.ranks;
    shape_.clear();
    shape_.reserve(nt);
    for (const Transfer& t : s.transfers) shape_.push_back({t.src, t.dst, t.step, t.qp});
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
      const RankTransfer rt{static_cast<int32_t>(i), s.transfers[i].step};
      rank_tx_[fill[static_cast<size_t>(s.transfers[i].src)]++] = rt;
      rank_tx_[fill[static_cast<size_t>(s.transfers[i].dst)]++] = rt;
    }
    rank_.resize(nr);
    ready_.resize(nt);
  }

  int32_t& Next(int32_t node) {
    return flows_[static_cast<size_t>(node / kHops)].next[static_cast<size_t>(node % kHops)];
  }
  int32_t& Prev(int32_t node) {
    return flows_[static_cast<size_t>(node / kHops)].prev[static_cast<size_t>(node % kHops)];
  }

  int32_t StepAt(const RankState& r) const { return r.pos < r.end ? rank_tx_[r.pos].step : -1; }

  void RankReady(int32_t rank, double t) {
    RankState& r = rank_[static_cast<size_t>(rank)];
    const int32_t step = StepAt(r);
    if (step < 0) {
      r.finish = t;
      return;
    }
    size_t k = r.pos;
    for (; k < r.end; ++k) {
      if (rank_tx_[k].step != step) break;
      const int32_t transfer = rank_tx_[k].id;
      ++r.pending;
      if (++ready_[static_cast<size_t>(transfer)] == 2) {
        const Transfer& tx = tx_[static_cast<size_t>(transfer)];
        const int32_t id = Take(transfer);
        FlowState& fs = flows_[static_cast<size_t>(id)];
        const Path p = net_.Route(tx.src, tx.dst, tx.qp);
        fs.links = p.links;
        fs.count = p.count;
        // Inside the window being handled the order of events does not matter (everything in it
        // is solved together at its end), so skip the queue.
        if (t + p.latency_s <= window_end_ && defer_) {
          deferred_.push_back({t + p.latency_s, 1, id});
        } else if (t + p.latency_s <= window_end_) {
          Activate(id, t + p.latency_s);
          seeds_.push_back(id);
        } else {
          events_.push({t + p.latency_s, 1, id});
        }
      }
    }
    r.step_end = static_cast<uint32_t>(k);
  }

  // A flow record from the pool for `transfer`, its bytes all still to move.
  int32_t Take(int32_t transfer) {
    int32_t id;
    if (pool_.empty()) {
      id = static_cast<int32_t>(flows_.size());
      flows_.emplace_back();
      done_.Grow(flows_.size());
    } else {
      id = pool_.back();
      pool_.pop_back();
    }
    FlowState& fs = flows_[static_cast<size_t>(id)];
    const Transfer& tx = tx_[static_cast<size_t>(transfer)];
    fs.transfer = transfer;
    fs.rem = tx.bytes;
    fs.src = tx.src;
    fs.dst = tx.dst;
    fs.reduce_bytes = tx.reduce_bytes;
    return id;
  }

  // Records of the flows done in the last window go back to the pool. Not sooner: the window's
  // seeds may still name them, and a record taken again inside the window would stand in the
  // seed list for a flow that is not there.
  void Release() {
    pool_.insert(pool_.end(), finished_.begin(), finished_.end());
    finished_.clear();
  }

  // The flow joins the per-link lists; it has moved nothing yet (rate 0 since `t`).
  void Activate(int32_t f, double t) {
    const size_t fi = static_cast<size_t>(f);
    FlowState& fs = flows_[fi];
    for (int32_t i = 0; i < fs.count; ++i) {
      LinkState& link = links_[static_cast<size_t>(fs.links[static_cast<size_t>(i)])];
      const int32_t node = f * kHops + i;
      const int32_t head = link.head;
      fs.prev[static_cast<size_t>(i)] = -1;
      fs.next[static_cast<size_t>(i)] = head;
      if (head >= 0) Prev(head) = node;
      link.head = node;
      ++link.count;
    }
    fs.rate = 0;
    fs.t_upd = t;
    ++active_;
  }

  // The flow leaves its links; the flows still on them are re-solved.
  void Finish(int32_t f, double t) {
    FlowState& fs = flows_[static_cast<size_t>(f)];
    for (int32_t i = 0; i < fs.count; ++i) {
      LinkState& link = links_[static_cast<size_t>(fs.links[static_cast<size_t>(i)])];
      const int32_t prev = fs.prev[static_cast<size_t>(i)], next = fs.next[static_cast<size_t>(i)];
      if (prev >= 0)
        Next(prev) = next;
      else
        link.head = next;
      if (next >= 0) Prev(next) = prev;
      --link.count;
      for (int32_t n = link.head; n >= 0; n = Next(n)) seeds_.push_back(n / kHops);
    }
    fs.rate = -1;  // inactive
    --active_;
    finished_.push_back(f);
    Done(fs.src, fs.dst, fs.reduce_bytes, t);
  }

  void Done(int32_t src, int32_t dst, double reduce_bytes, double t) {
    rank_[static_cast<size_t>(dst)].reduce_acc += reduce_bytes;
    for (int32_t rank : {src, dst}) {
      RankState& r = rank_[static_cast<size_t>(rank)];
      if (--r.pending > 0) continue;
      r.pos = r.step_end;
      const double reduce = r.reduce_acc / gamma_;
      r.reduce_acc = 0;
      if (t + reduce <= window_end_)
        RankReady(rank, t + reduce);
      else
        events_.push({t + reduce, 0, rank});
    }
  }

  // The flows reachable from the seeds through links that carry two or more flows, and those
  // links. Links carrying one flow only cap it.
  void Component() {
    ++stamp_;
    comp_.clear();
    comp_links_.clear();
    for (int32_t f : seeds_) {
      FlowState& fs = flows_[static_cast<size_t>(f)];
      if (fs.rate < 0 || fs.mark == stamp_) continue;
      fs.mark = stamp_;
      comp_.push_back(f);
    }
    for (size_t k = 0; k < comp_.size(); ++k) {
      // The links of the flows a few places ahead are cache misses: start loading them now.
      if (k + kPrefetchNear < comp_.size()) {
        const FlowState& ahead = flows_[static_cast<size_t>(comp_[k + kPrefetchNear])];
        for (int32_t h = 0; h < ahead.count; ++h)
          __builtin_prefetch(&links_[static_cast<size_t>(ahead.links[static_cast<size_t>(h)])]);
      }
      const FlowState& fs = flows_[static_cast<size_t>(comp_[k])];
      for (int32_t i = 0; i < fs.count; ++i) {
        const int32_t l = fs.links[static_cast<size_t>(i)];
        LinkState& link = links_[static_cast<size_t>(l)];
        if (link.count < 2 || link.mark == stamp_) continue;
        link.mark = stamp_;
        comp_links_.push_back(l);
        for (int32_t n = link.head; n >= 0; n = Next(n)) {
          FlowState& g = flows_[static_cast<size_t>(n / kHops)];
          if (g.mark == stamp_) continue;
          g.mark = stamp_;
          comp_.push_back(n / kHops);
        }
      }
    }
  }

  // Caps are the capacities of private links, so only a few distinct values occur: a counting
  // sort over them is much cheaper than a comparison sort of every flow.
  void SortCaps() {
    distinct_.clear();
    for (const Cap& c : caps_) {
      if (std::find(distinct_.begin(), distinct_.end(), c.cap) == distinct_.end()) distinct_.push_back(c.cap);
      if (distinct_.size() > 16) {
        std::sort(caps_.begin(), caps_.end());
        return;
      }
    }
    std::sort(distinct_.begin(), distinct_.end());
    sorted_caps_.clear();
    for (double v : distinct_)
      for (const Cap& c : caps_)
        if (c.cap == v) sorted_caps_.push_back(c);
    caps_.swap(sorted_caps_);
  }

  // Progressive filling over the component: repeatedly the smallest of (a shared link's fair
  // share, a flow's own cap) fixes rates. Shares only grow as flows freeze, so a stale heap entry
  // is re-pushed when popped.
  void Solve(double now) {
    for (int32_t l : comp_links_) {
      LinkState& link = links_[static_cast<size_t>(l)];
      link.rem = link.capacity;
      link.unfrozen = link.count;
    }
    caps_.clear();
    old_rate_.clear();
    for (int32_t f : comp_) {
      FlowState& fs = flows_[static_cast<size_t>(f)];
      old_rate_.push_back(fs.rate);
      // Bring the bytes moved at the old rate up to date before the rate changes.
      fs.rem -= fs.rate * (now - fs.t_upd);
      fs.t_upd = fs.rate > 0 ? now : fs.t_upd;  // a new flow keeps its start for the credit
      double cap = kInf;
      for (int32_t i = 0; i < fs.count; ++i) {
        const LinkState& link = links_[static_cast<size_t>(fs.links[static_cast<size_t>(i)])];
        if (link.count < 2) cap = std::min(cap, link.capacity);
      }
      caps_.push_back({cap, fs.transfer, f});
      fs.rate = -2;  // unfrozen during the solve
    }
    SortCaps();
    size_t next_cap = 0;
    auto unfrozen = [&](int32_t f) { return flows_[static_cast<size_t>(f)].rate == -2; };
    auto freeze = [&](int32_t f, double r) {
      FlowState& fs = flows_[static_cast<size_t>(f)];
      fs.rate = r;
      for (int32_t i = 0; i < fs.count; ++i) {
        LinkState& link = links_[static_cast<size_t>(fs.links[static_cast<size_t>(i)])];
        if (link.mark != stamp_) continue;
        link.rem -= r;
        --link.unfrozen;
      }
    };
    auto share = [&](const LinkState& link) { return std::max(0.0, link.rem) / link.unfrozen; };
    // Rates in a component take few distinct values (C, C/2, C/3 ... after ECMP collisions), so
    // first fill level by level: find the lowest share over the live links and freeze every link
    // at it (freezing flows at the lowest share never lowers another link's share below it). A
    // component with many distinct levels goes on with the heap below, from the same state.
    live_.assign(comp_links_.begin(), comp_links_.end());
    // One pass per level: links at or under the level freeze their flows and leave the live list;
    // the others give the next level. Links seen early in a pass may rise after later freezes, so
    // that next level is a lower bound: a pass that freezes nothing recomputes it exactly.
    double level = kInf;
    for (int32_t l : live_) {
      const LinkState& link = links_[static_cast<size_t>(l)];
      level = std::min(level, link.rem / link.unfrozen);
    }
    for (int pass = 0; pass < kScanPasses && !live_.empty(); ++pass) {
      while (next_cap < caps_.size() && !unfrozen(caps_[next_cap].flow)) ++next_cap;
      const double cap = next_cap < caps_.size() ? caps_[next_cap].cap : kInf;
      if (cap <= level) {
        for (; next_cap < caps_.size() && caps_[next_cap].cap <= cap; ++next_cap)
          if (unfrozen(caps_[next_cap].flow)) freeze(caps_[next_cap].flow, cap);
      }
      const double bound = std::min(level, cap) * (1 + 1e-12);
      double next = kInf;
      size_t w = 0;
      for (int32_t l : live_) {
        const LinkState& link = links_[static_cast<size_t>(l)];
        if (link.unfrozen == 0) continue;
        const double current = share(link);
        if (current > bound || current > cap) {
          live_[w++] = l;
          next = std::min(next, current);
          continue;
        }
        for (int32_t n = link.head; n >= 0; n = Next(n))
          if (unfrozen(n / kHops)) freeze(n / kHops, current);
      }
      live_.resize(w);
      level = next;
    }
    heap_.clear();
    for (int32_t l : live_) {
      const LinkState& link = links_[static_cast<size_t>(l)];
      if (link.unfrozen > 0) heap_.push_back({share(link), l});
    }
    std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
    while (true) {
      while (next_cap < caps_.size() && !unfrozen(caps_[next_cap].flow)) ++next_cap;
      const double cap = next_cap < caps_.size() ? caps_[next_cap].cap : kInf;
      if (heap_.empty() || cap <= heap_.front().share) {
        if (next_cap == caps_.size()) break;
        freeze(caps_[next_cap].flow, cap);
        continue;
      }
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      const auto [popped, l] = heap_.back();
      heap_.pop_back();
      const LinkState& link = links_[static_cast<size_t>(l)];
      if (link.unfrozen == 0) continue;
      const double current = share(link);
      if (current > popped * (1 + 1e-12)) {
        heap_.push_back({current, l});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        continue;
      }
      if (cap < current) {  // a flow's own cap comes first after all
        heap_.push_back({current, l});
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        freeze(caps_[next_cap].flow, cap);
        continue;
      }
      for (int32_t n = link.head; n >= 0; n = Next(n))
        if (unfrozen(n / kHops)) freeze(n / kHops, current);
    }
    for (size_t k = 0; k < comp_.size(); ++k) {
      const int32_t f = comp_[k];
      FlowState& fs = flows_[static_cast<size_t>(f)];
      const double r = std::max(fs.rate, 1e-300);
      fs.rate = r;
      fs.rem -= r * (now - fs.t_upd);  // a flow that started inside the window: its credit
      fs.t_upd = now;
      // An unchanged rate leaves the queued finish time valid: no new heap entry.
      if (r == old_rate_[k]) continue;
      // A flow that started inside the window may be done before its end: back-date its finish.
      done_.Set(f, now + fs.rem / r);
    }
  }

  const Network& net_;
  int ranks_ = -1;
  double gamma_, merge_;
  const Transfer* tx_ = nullptr;          // the transfers of the schedule being run
  std::vector<TransferShape> shape_;      // of the last schedule built
  std::vector<FlowState> flows_;          // the pool of flow records, active or free
  std::vector<int32_t> pool_, finished_;  // free records; records done in this window
  std::vector<LinkState> links_;
  uint32_t stamp_ = 0;
  std::vector<size_t> offset_;  // per rank, where its transfers start in rank_tx_ (and one past)
  std::vector<RankTransfer> rank_tx_;
  std::vector<RankState> rank_;
  std::vector<uint8_t> ready_;  // per transfer, how many of its two ranks have reached its step
  // Active flows per link are intrusive doubly linked lists over (flow, hop) nodes, node =
  // flow * kHops + hop, stored in FlowState: joining and leaving are O(1) and allocate nothing.
  std::vector<int32_t> seeds_, comp_, comp_links_;
  std::vector<double> old_rate_;
  std::vector<Share> heap_;
  std::vector<Event> arriving_;  // the events of the window being handled
  std::vector<Event> deferred_;  // activations inside the window started by its completions
  bool defer_ = false;           // while the window's completions are handled
  std::vector<Event> ending_;    // the completions of the window being handled (kind unused)
  std::vector<int32_t> live_;    // component links that still carry an unfrozen flow
  std::vector<Cap> caps_, sorted_caps_;
  std::vector<double> distinct_;
  EventQueue<Event> events_;
  CompletionHeap done_;
  int64_t active_ = 0;
  double window_end_ = -1;  // events up to here are being handled now
  int64_t solves_ = 0;
};

}  // namespace

struct FlowSimulator::Impl {
  Impl(const Network& net, double gamma, double merge) : sim(net, gamma, merge) {}
  FlowSim sim;
};

FlowSimulator::FlowSimulator(const Network& net, double reduce_bytes_per_s, double merge_window_rel)
    : impl_(std::make_unique<Impl>(net, reduce_bytes_per_s, merge_window_rel)) {}

FlowSimulator::~FlowSimulator() = default;

FlowSimResult FlowSimulator::Run(const Schedule& schedule, const std::vector<double>& start_s) {
  impl_->sim.Load(schedule);
  return impl_->sim.Run(start_s);
}

FlowSimResult SimulateFlows(const Network& net, const Schedule& schedule, double reduce_bytes_per_s,
                            const std::vector<double>& start_s, double merge_window_rel) {
  return FlowSimulator(net, reduce_bytes_per_s, merge_window_rel).Run(schedule, start_s);
}

}  // namespace npugap::comm
