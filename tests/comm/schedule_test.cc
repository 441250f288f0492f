#include <map>

#include <gtest/gtest.h>

#include "npugap/comm/schedule.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::SwitchCluster;

struct Totals {
  std::map<int, double> sent, received, reduced;
};
Totals Sum(const Schedule& s) {
  Totals t;
  for (const Transfer& x : s.transfers) {
    t.sent[x.src] += x.bytes;
    t.received[x.dst] += x.bytes;
    t.reduced[x.dst] += x.reduce_bytes;
  }
  return t;
}

Schedule Build(const Cluster& c, int ranks, Op op, double n, std::vector<Algo> algos, int root = 0) {
  const Layout l = *MakeLayout(c, ranks);
  CollectiveSpec spec;
  spec.op = op;
  spec.bytes = n;
  spec.root = root;
  auto s = BuildSchedule(l, spec, Plan{std::move(algos)});
  EXPECT_TRUE(s.ok()) << s.status().message();
  return *s;
}

TEST(CommSchedule, RingAllReduceSendsTwiceTheBandwidthTerm) {
  const Cluster c = SwitchCluster(8, 100, 1, 10, 10);
  const double n = 8e6;
  const Schedule s = Build(c, 8, Op::kAllReduce, n, {Algo::kRing});
  EXPECT_EQ(s.steps, 2 * 7);
  EXPECT_EQ(s.transfers.size(), 2u * 7 * 8);
  const Totals t = Sum(s);
  for (int r = 0; r < 8; ++r) {
    EXPECT_DOUBLE_EQ(t.sent.at(r), 2.0 * 7 / 8 * n);
    EXPECT_DOUBLE_EQ(t.reduced.at(r), 7.0 / 8 * n);
  }
}

TEST(CommSchedule, BandwidthOptimalAlgorithmsMoveTheSameBytes) {
  const Cluster c = SwitchCluster(8, 100, 1, 10, 10);
  const double n = 6e6;
  for (Algo a : {Algo::kRing, Algo::kNHR, Algo::kNB, Algo::kMesh}) {
    for (int p : {5, 6, 7}) {
      const Schedule rs = Build(c, p, Op::kReduceScatter, n, {a});
      const Schedule ag = Build(c, p, Op::kAllGather, n, {a});
      for (int r = 0; r < p; ++r) {
        EXPECT_NEAR(Sum(rs).sent.at(r), (p - 1.0) / p * n, 1e-6) << AlgoName(a) << " p=" << p;
        EXPECT_NEAR(Sum(ag).received.at(r), (p - 1.0) / p * n, 1e-6) << AlgoName(a) << " p=" << p;
      }
    }
  }
  // log-step algorithms use ceil(log2 p) steps
  EXPECT_EQ(Build(c, 5, Op::kAllGather, n, {Algo::kNB}).steps, 3);
  EXPECT_EQ(Build(c, 8, Op::kReduceScatter, n, {Algo::kNHR}).steps, 3);
}

TEST(CommSchedule, HalvingDoublingAddsPreAndPostStepsOffPowersOfTwo) {
  const Cluster c = SwitchCluster(8, 100, 1, 10, 10);
  const double n = 6e6;
  const Schedule pow2 = Build(c, 8, Op::kReduceScatter, n, {Algo::kHD});
  EXPECT_EQ(pow2.steps, 3);
  const Schedule six = Build(c, 6, Op::kReduceScatter, n, {Algo::kHD});
  EXPECT_EQ(six.steps, 2 + 2);  // pre, log2(4) = 2, post
  int pre = 0;
  for (const Transfer& t : six.transfers)
    if (t.step == 0) {
      ++pre;
      EXPECT_DOUBLE_EQ(t.bytes, n);
      EXPECT_GE(t.src, 4);
    }
  EXPECT_EQ(pre, 2);
}

TEST(CommSchedule, HierarchicalAllReduceCrossesServersWithOneEighth) {
  const Cluster c = SwitchCluster(8, 100, 1, 10, 10);
  const double n = 64e6;
  const Layout l = *MakeLayout(c, 32);
  const Schedule s = Build(c, 32, Op::kAllReduce, n, {Algo::kMesh, Algo::kRing});
  std::map<int, double> nic;
  for (const Transfer& t : s.transfers)
    if (l.CrossLevel(t.src, t.dst) == 1) nic[t.src] += t.bytes;
  ASSERT_EQ(nic.size(), 32u);
  for (const auto& [rank, bytes] : nic) EXPECT_DOUBLE_EQ(bytes, 2.0 * 3 / 4 * n / 8) << rank;
}

TEST(CommSchedule, BroadcastReachesEveryRankOnce) {
  const Cluster c = SwitchCluster(8, 100, 1, 10, 10);
  const double n = 1e6;
  for (Algo a : {Algo::kHD, Algo::kMesh}) {
    const Schedule s = Build(c, 24, Op::kBroadcast, n, {a, a}, /*root=*/5);
    const Totals t = Sum(s);
    EXPECT_EQ(t.received.size(), 23u) << AlgoName(a);
    EXPECT_EQ(t.received.count(5), 0u);
    for (const auto& [r, b] : t.received) EXPECT_DOUBLE_EQ(b, n) << r;
  }
}

TEST(CommSchedule, PairwiseAllToAllShiftsByOnePerStep) {
  const Cluster c = SwitchCluster(4, 100, 1, 10, 10);
  const Schedule s = Build(c, 8, Op::kAllToAll, 8e3, {Algo::kPairwise});
  EXPECT_EQ(s.steps, 7);
  for (const Transfer& t : s.transfers) {
    EXPECT_EQ((t.dst - t.src + 8) % 8, t.step + 1);
    EXPECT_DOUBLE_EQ(t.bytes, 1e3);
  }
}

}  // namespace
}  // namespace npugap::comm
