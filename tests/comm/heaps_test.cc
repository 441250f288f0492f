// The flow simulator's two 4-ary min-heaps (src/comm/event_queue.h, completion_heap.h) against a
// sort: every entry comes out once, in time order, through pushes, pops and in-place moves.
#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../../src/comm/completion_heap.h"
#include "../../src/comm/event_queue.h"
#include "../../src/comm/four_ary_heap.h"

namespace npugap::comm {
namespace {

struct TimedId {
  double t;
  int id;
};

// SmallestChild's tournament over four children picks what a scan picks: the smallest time, the
// lowest index among equal ones (the pops' order, and so the flow pins, depend on it).
TEST(CommHeaps, SmallestChildIsTheFirstSmallestAsAScanFindsIt) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> coarse(0, 3);  // few distinct times: ties everywhere
  for (size_t n = 1; n <= 40; ++n) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<TimedId> heap(n);
      for (size_t i = 0; i < n; ++i) heap[i] = {static_cast<double>(coarse(rng)), static_cast<int>(i)};
      for (size_t i = 0; i < n; ++i) {
        const size_t first = kHeapArity * i + 1;
        size_t want = n;
        for (size_t c = first; c < std::min(first + kHeapArity, n); ++c)
          if (want == n || heap[c].t < heap[want].t) want = c;
        ASSERT_EQ(SmallestChild(heap, i), want) << "n " << n << " node " << i;
      }
    }
  }
}

TEST(CommHeaps, EventQueuePopsTheSmallestTimeWithPushesInBetween) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> coarse(0, 50);  // coarse times: many ties
  EventQueue<TimedId> q;
  std::multiset<double> queued;
  std::vector<bool> seen(2000, false);
  auto pop = [&] {
    ASSERT_FALSE(q.empty());
    EXPECT_EQ(q.top().t, *queued.begin());
    EXPECT_FALSE(seen[static_cast<size_t>(q.top().id)]);
    seen[static_cast<size_t>(q.top().id)] = true;
    queued.erase(queued.begin());
    q.pop();
  };
  for (int i = 0; i < 2000; ++i) {
    const double t = coarse(rng);
    q.push({t, i});
    queued.insert(t);
    if (i % 3 == 2) pop();
  }
  while (!queued.empty()) pop();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 2000);
}

TEST(CommHeaps, CompletionHeapFollowsMovedEntries) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> time(0, 1);
  const int n = 500;
  CompletionHeap h;
  h.Grow(n);
  std::vector<double> at(n);
  for (int f = 0; f < n; ++f) h.Set(f, at[static_cast<size_t>(f)] = time(rng));
  for (int k = 0; k < 2000; ++k) {  // move entries up and down in place
    const int f = static_cast<int>(rng() % n);
    h.Set(f, at[static_cast<size_t>(f)] = time(rng));
  }
  std::vector<std::pair<double, int>> want;
  for (int f = 0; f < n; ++f) want.push_back({at[static_cast<size_t>(f)], f});
  std::sort(want.begin(), want.end());
  for (const auto& [t, f] : want) {
    ASSERT_FALSE(h.empty());
    EXPECT_EQ(h.top_t(), t);
    EXPECT_EQ(h.top_flow(), f);
    h.Pop();
  }
  EXPECT_TRUE(h.empty());
}

}  // namespace
}  // namespace npugap::comm
