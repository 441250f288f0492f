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

// ConvNeXt's stage-3 blocks as `npugap memory` sees them (units of 1 KiB; lifetimes copied from
// convnext_tiny's plan): a residual-stream tensor of 4 alive across its block and overlapping the
// next one at the Add, then the depthwise conv, LayerNorm and a 4x-wide MLP whose 16-unit GELU
// tensors peak three at a time.
std::vector<TensorUse> ConvNextBlocks(int blocks) {
  std::vector<TensorUse> uses;
  const int64_t k = 1024;
  for (int b = 0; b < blocks; ++b) {
    const int t = 18 * b;
    const auto add = [&](int64_t units, int first, int last) {
      uses.push_back({static_cast<int>(uses.size()), units * k, t + first, t + last});
    };
    add(4, 0, 18);  // the block's input, read again by the residual Add at step 18
    add(4, 2, 3), add(4, 3, 4);
    add(16, 4, 5), add(16, 5, 11), add(16, 7, 8), add(16, 8, 10), add(16, 10, 11), add(16, 11, 13),
        add(16, 13, 14);
    add(4, 14, 15), add(4, 15, 16), add(4, 16, 17), add(4, 17, 18);
  }
  return uses;
}

TEST(PlannerTest, RefinementClosesTheResidualStreamGap) {
  const std::vector<TensorUse> uses = ConvNextBlocks(9);
  const int64_t bound = LowerBound(uses);
  EXPECT_EQ(bound, 52 * 1024);  // the residual plus three MLP tensors
  // Best fit alone, under every one of its orders, stacks the residuals above the MLP tensors.
  const Placement plain = GreedyBySizePlanner(0).Assign(uses);
  ASSERT_TRUE(PlacementValid(uses, plain));
  EXPECT_EQ(plain.peak_bytes, 56 * 1024);
  // Refined, the residuals alternate between the bottom and the top: the lower bound.
  const Placement refined = GreedyBySizePlanner().Assign(uses);
  ASSERT_TRUE(PlacementValid(uses, refined));
  EXPECT_EQ(refined.peak_bytes, bound);
}

TEST(PlannerTest, RefinedPlansAreValidAndNoLarger) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<TensorUse> uses;
    for (int i = 0; i < 120; ++i) {
      const int first = static_cast<int>(rng() % 80);
      uses.push_back(
          {i, 512 * (1 + static_cast<int64_t>(rng() % 32)), first, first + static_cast<int>(rng() % 12)});
    }
    const Placement plain = GreedyBySizePlanner(0).Assign(uses);
    const Placement refined = GreedyBySizePlanner().Assign(uses);
    ASSERT_TRUE(PlacementValid(uses, refined));
    EXPECT_LE(refined.peak_bytes, plain.peak_bytes);
    EXPECT_GE(refined.peak_bytes, LowerBound(uses));
  }
}

TEST(PlannerTest, MakePlannerByName) {
  EXPECT_EQ(MakePlanner("greedy-by-size")->name(), "greedy-by-size");
  EXPECT_EQ(MakePlanner("naive")->name(), "naive");
  EXPECT_EQ(MakePlanner("best"), nullptr);
}

}  // namespace
}  // namespace npugap::analysis::memory
