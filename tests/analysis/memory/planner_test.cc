// Planners on crafted lifetimes: offsets checked by hand, greedy never below the lower bound and
// never overlapping, naive equal to the sum.
#include "npugap/analysis/memory/planner.h"

#include <gtest/gtest.h>

#include <random>

namespace npugap::analysis::memory {
namespace {

TEST(PlannerTest, GreedyReusesMemoryOfDeadTensors) {
  // A and C never overlap, so C takes A's place; B overlaps both and goes above them.
  const std::vector<TensorUse> uses = {{0, 100, 0, 1}, {1, 50, 1, 2}, {2, 100, 2, 3}};
  const Placement p = GreedyBySizePlanner().Assign(uses);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 100, 0}));
  EXPECT_EQ(p.peak_bytes, 150);
  EXPECT_EQ(LowerBound(uses), 150);  // steps 1 and 2 each hold 150
  EXPECT_EQ(NaivePlanner().Assign(uses).peak_bytes, 250);
  EXPECT_EQ(NaivePlanner().Assign(uses).offsets, (std::vector<int64_t>{0, 100, 150}));
}

TEST(PlannerTest, GreedyPicksTheSmallestGapThatFits) {
  // Placed by size: A@0, D@100, C@200, B@240. From step 1 on, A's 100 B and C's 40 B are free;
  // E (25 B, placed last) goes into the 40 B gap, not the 100 B one.
  const std::vector<TensorUse> uses = {
      {0, 100, 0, 0}, {1, 30, 0, 3}, {2, 40, 0, 0}, {3, 100, 0, 3}, {4, 25, 1, 3}};
  const Placement p = GreedyBySizePlanner().Assign(uses);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 240, 200, 100, 200}));
  EXPECT_EQ(p.peak_bytes, 270);
  EXPECT_EQ(LowerBound(uses), 270);
  EXPECT_TRUE(PlacementValid(uses, p));
}

TEST(PlannerTest, LowerBoundCountsInclusiveLifetimes) {
  // [0,2] and [2,4] share step 2; [0,1] and [2,3] share nothing.
  EXPECT_EQ(LowerBound({{0, 10, 0, 2}, {1, 20, 2, 4}}), 30);
  EXPECT_EQ(LowerBound({{0, 10, 0, 1}, {1, 20, 2, 3}}), 20);
  EXPECT_EQ(LowerBound({}), 0);
}

TEST(PlannerTest, PlacementValidRejectsOverlap) {
  const std::vector<TensorUse> uses = {{0, 100, 0, 1}, {1, 50, 1, 2}};
  EXPECT_FALSE(PlacementValid(uses, {{0, 60}, 110}));
  EXPECT_TRUE(PlacementValid(uses, {{0, 100}, 150}));
}

TEST(PlannerTest, RandomLifetimesGreedyIsValidAndBounded) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<TensorUse> uses;
    int64_t sum = 0;
    for (int i = 0; i < 150; ++i) {
      const int first = static_cast<int>(rng() % 100);
      const int64_t bytes = 512 * (1 + static_cast<int64_t>(rng() % 64));
      uses.push_back({i, bytes, first, first + static_cast<int>(rng() % 10)});
      sum += bytes;
    }
    const Placement greedy = GreedyBySizePlanner().Assign(uses);
    ASSERT_TRUE(PlacementValid(uses, greedy));
    EXPECT_GE(greedy.peak_bytes, LowerBound(uses));
    EXPECT_LE(greedy.peak_bytes, sum);
    const Placement naive = NaivePlanner().Assign(uses);
    EXPECT_TRUE(PlacementValid(uses, naive));
    EXPECT_EQ(naive.peak_bytes, sum);
  }
}

TEST(PlannerTest, MakePlannerByName) {
  EXPECT_EQ(MakePlanner("greedy-by-size")->name(), "greedy-by-size");
  EXPECT_EQ(MakePlanner("naive")->name(), "naive");
  EXPECT_EQ(MakePlanner("best"), nullptr);
}

}  // namespace
}  // namespace npugap::analysis::memory
