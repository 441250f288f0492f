// The flow simulator's queue of finish times: a binary min-heap with one entry per active flow,
// moved in place when a re-solve changes the flow's rate, so it holds only live entries (no stale
// copies to skip) and stays as small as the number of active flows.
//
// Each flow's index in the heap lives in a dense array of its own rather than in the flow's
// record: a sift writes the index of every entry it moves, and those writes would otherwise each
// touch a different 128-byte record (a cache miss per heap level at 16,384 ranks).
//
// The order in which entries of equal time come out can order the handling of completions
// inside a merge window. It is a 4-ary heap (half the levels of a binary one, the four children
// of a node in one cache line); going from 2 to 4 children left every time pinned in
// CommFlowPins bit-identical and every solve count equal (commit of this change).
#pragma once

#include "four_ary_heap.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npugap::comm {

class CompletionHeap {
 public:
  bool empty() const { return heap_.empty(); }
  double top_t() const { return heap_[0].t; }
  int32_t top_flow() const { return heap_[0].flow; }
  // Flows are numbered 0 .. n-1; makes room for flow numbers up to n-1.
  void Grow(size_t n) {
    if (pos_.size() < n) pos_.resize(n, -1);
  }
  void Set(int32_t flow, double t) {
    int32_t& at = pos_[static_cast<size_t>(flow)];
    if (at < 0) {
      at = static_cast<int32_t>(heap_.size());
      heap_.push_back({t, flow});
      Up(static_cast<size_t>(at));
      return;
    }
    const size_t i = static_cast<size_t>(at);
    const double old = heap_[i].t;
    heap_[i].t = t;
    if (t < old)
      Up(i);
    else
      Down(i);
  }
  void Pop() {
    pos_[static_cast<size_t>(heap_[0].flow)] = -1;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (heap_.empty()) return;
    heap_[0] = last;
    pos_[static_cast<size_t>(last.flow)] = 0;
    Down(0);
  }

 private:
  struct Entry {
    double t;
    int32_t flow;
  };
  void Place(size_t i, const Entry& e) {
    heap_[i] = e;
    pos_[static_cast<size_t>(e.flow)] = static_cast<int32_t>(i);
  }
  void Up(size_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const size_t parent = HeapParent(i);
      if (!(e.t < heap_[parent].t)) break;
      Place(i, heap_[parent]);
      i = parent;
    }
    Place(i, e);
  }
  void Down(size_t i) {
    const Entry e = heap_[i];
    const size_t n = heap_.size();
    while (true) {
      const size_t child = SmallestChild(heap_, i);
      if (child >= n) break;
      if (!(heap_[child].t < e.t)) break;
      Place(i, heap_[child]);
      i = child;
    }
    Place(i, e);
  }
  std::vector<Entry> heap_;
  std::vector<int32_t> pos_;  // each flow's index in heap_, -1 when not queued
};

}  // namespace npugap::comm
