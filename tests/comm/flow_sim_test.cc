// The flow-level simulator on crafted flows: max-min fairness, ECMP collisions, oversubscription.
#include <gtest/gtest.h>

#include "npugap/comm/simulate.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

Schedule OneStep(int ranks, const std::vector<std::pair<int, int>>& flows, double bytes) {
  Schedule s;
  s.ranks = ranks;
  s.steps = 1;
  for (auto [a, b] : flows) s.transfers.push_back({a, b, 0, 0, bytes, 0});
  return s;
}

TEST(CommFlowSim, MaxMinFairSharing) {
  // Switch ports of B: A 0->1 and B 0->2 share rank 0's up port; B, C 3->2, D 4->2 share rank
  // 2's down port. Max-min: B, C, D get B/3; A gets the rest of port 0, 2B/3.
  const double B = 10e9, alpha = 2e-6, S = 1e8;
  const Cluster c = testing::SwitchCluster(8, B / 1e9, alpha * 1e6, 1, 1);
  const Layout l = *MakeLayout(c, 8);
  const Network net = *Network::Build(c, l, 1, {});
  const FlowSimResult r = SimulateFlows(net, OneStep(8, {{0, 1}, {0, 2}, {3, 2}, {4, 2}}, S), 1e18, {}, 1e-6);
  EXPECT_NEAR(r.rank_finish_s[1], alpha + S / (2 * B / 3), 1e-9);
  EXPECT_NEAR(r.time_s, alpha + 3 * S / B, 1e-9);
  EXPECT_NEAR(r.rank_finish_s[5], 0, 1e-15);  // idle rank
}

TEST(CommFlowSim, CompletionsReSolveTheFlowsTheyShareLinksWith) {
  // A 0->1 (S) and B 0->2 (2S) share port 0 up; B and C 3->2 (S) share port 2 down; D 4->5 (S) is
  // on its own. All get B/2 except D (B). When A and C finish at 2S/B, B is alone on both links
  // and finishes its last S at full rate; D is never re-solved and keeps its time.
  const double B = 10e9, alpha = 2e-6, S = 1e8;
  const Cluster c = testing::SwitchCluster(8, B / 1e9, alpha * 1e6, 1, 1);
  const Layout l = *MakeLayout(c, 8);
  const Network net = *Network::Build(c, l, 1, {});
  Schedule s = OneStep(8, {{0, 1}, {0, 2}, {3, 2}, {4, 5}}, S);
  s.transfers[1].bytes = 2 * S;
  const FlowSimResult r = SimulateFlows(net, s, 1e18, {}, 1e-9);
  EXPECT_NEAR(r.rank_finish_s[1], alpha + 2 * S / B, 1e-9);
  EXPECT_NEAR(r.rank_finish_s[3], alpha + 2 * S / B, 1e-9);
  EXPECT_NEAR(r.rank_finish_s[2], alpha + 3 * S / B, 1e-9);
  EXPECT_NEAR(r.rank_finish_s[5], alpha + S / B, 1e-9);
  // The default merge window applies B's new rate from the window's end (20 ms + 3e-3 of it), so B
  // ends late by at most that window, never early.
  const FlowSimResult merged = SimulateFlows(net, s, 1e18, {}, 3e-3);
  EXPECT_GE(merged.time_s, r.time_s - 1e-12);
  EXPECT_LE(merged.time_s, r.time_s + 3e-3 * (alpha + 2 * S / B) + 1e-12);
}

TEST(CommFlowSim, ManyDistinctFairSharesFallBackToTheHeapExactly) {
  // Destination k (0..59) receives from k + 1 senders of its own, all in one step and one solve:
  // 60 distinct fair shares B/(k+1), more than the level-by-level passes, so the share heap
  // finishes the filling. Every group ends at alpha + (k+1) S / B.
  const double B = 10e9, alpha = 2e-6, S = 1e7;
  const int groups = 60, ranks = 2048;
  const Cluster c = testing::SwitchCluster(ranks, B / 1e9, alpha * 1e6, 1, 1);
  const Layout l = *MakeLayout(c, ranks);
  const Network net = *Network::Build(c, l, 1, {});
  std::vector<std::pair<int, int>> flows;
  int sender = groups;
  for (int k = 0; k < groups; ++k)
    for (int j = 0; j <= k; ++j) flows.push_back({sender++, k});
  ASSERT_LT(sender, ranks);
  const FlowSimResult r = SimulateFlows(net, OneStep(ranks, flows, S), 1e18, {}, 1e-9);
  for (int k = 0; k < groups; ++k)
    EXPECT_NEAR(r.rank_finish_s[static_cast<size_t>(k)], alpha + (k + 1) * S / B, 1e-12) << "group " << k;
  EXPECT_NEAR(r.time_s, alpha + groups * S / B, 1e-12);
}

TEST(CommFlowSim, CraftedEcmpCollisionHalvesTheRate) {
  // Two leaves of two NICs, two spines. Flows 0->2 and 1->3 cross the spine layer; when their hash
  // picks the same spine they share one leaf uplink and each gets B/2.
  const double B = 25e9, alpha = 10e-6, S = 1e9;
  const Cluster c = testing::FabricCluster(B / 1e9, alpha * 1e6, 2, 1);
  const Layout l = *MakeLayout(c, 4);
  uint64_t collide = 0, apart = 0;
  for (uint64_t seed = 1; seed < 64 && (!collide || !apart); ++seed) {
    const Network net = *Network::Build(c, l, seed, {});
    (net.SpineOf(0, 2) == net.SpineOf(1, 3) ? collide : apart) = seed;
  }
  ASSERT_TRUE(collide && apart);
  const Schedule s = OneStep(4, {{0, 2}, {1, 3}}, S);
  const FlowSimResult hit = SimulateFlows(*Network::Build(c, l, collide, {}), s, 1e18, {}, 1e-6);
  const FlowSimResult miss = SimulateFlows(*Network::Build(c, l, apart, {}), s, 1e18, {}, 1e-6);
  EXPECT_NEAR(miss.time_s, alpha + S / B, 1e-9);
  EXPECT_NEAR(hit.time_s, alpha + S / (B / 2), 1e-9);
  EXPECT_EQ(Network::Build(c, l, collide, {})->uplinks_per_leaf(), 2);
}

TEST(CommFlowSim, OversubscriptionCapsCrossLeafTraffic) {
  // Four NICs per leaf at 2:1 give two uplinks: four cross-leaf flows get at most 2B together.
  const double B = 25e9, S = 1e9;
  const Cluster c = testing::FabricCluster(B / 1e9, 0, 4, 2);
  const Layout l = *MakeLayout(c, 8);
  for (uint64_t seed = 1; seed < 8; ++seed) {
    const Network net = *Network::Build(c, l, seed, {});
    ASSERT_EQ(net.uplinks_per_leaf(), 2);
    const Schedule s = OneStep(8, {{0, 4}, {1, 5}, {2, 6}, {3, 7}}, S);
    const FlowSimResult r = SimulateFlows(net, s, 1e18, {}, 1e-6);
    int on0 = 0;
    for (int i = 0; i < 4; ++i) on0 += net.SpineOf(i, i + 4) == 0;
    // The busier uplink carries max(on0, 4-on0) flows of S at B in total.
    EXPECT_NEAR(r.time_s, std::max(on0, 4 - on0) * S / B, 1e-9) << "seed " << seed;
  }
}

TEST(CommFlowSim, RingAllReduceOnAnOversubscribedFabricIsSlowerThanAnalytical) {
  // One NIC per leaf and 1:1 would be non-blocking; with 8 NICs per leaf at 4:1 the H-D steps that
  // cross leaves queue on two uplinks, which the analytical model does not see.
  const Cluster c = testing::FabricCluster(25, 10, 8, 4);
  CollectiveSpec spec;
  spec.bytes = 256e6;
  SimOptions o;
  o.algo = *ParseHcclAlgo("level0:NA;level1:H-D_R");
  o.kind = SimKind::kAnalytical;
  const double a = SimulateCollective(c, 64, spec, o)->time_s;
  o.kind = SimKind::kFlow;
  const double f = SimulateCollective(c, 64, spec, o)->time_s;
  EXPECT_GT(f, 1.5 * a);
}

TEST(CommFlowSim, ASimulatorReusedAcrossSchedulesGivesWhatAFreshOneGives) {
  // Rounds of one collective (same transfers, other bytes) reuse the records; a schedule of another
  // shape rebuilds them. Every run must equal a fresh SimulateFlows bit for bit, stragglers included.
  const Cluster c = testing::FabricCluster(25, 10, 8, 2);  // 2:1 oversubscribed: ECMP collisions
  const Layout l = *MakeLayout(c, 64);
  const Network net = *Network::Build(c, l, 3, {});
  auto schedule = [&](const char* algo, double bytes) {
    CollectiveSpec spec;
    spec.bytes = bytes;
    return *BuildSchedule(l, spec, *SelectPlan(c, l, Op::kAllReduce, bytes, *ParseHcclAlgo(algo)));
  };
  const Schedule ring_big = schedule("level0:NA;level1:ring", 64e6);
  const Schedule ring_small = schedule("level0:NA;level1:ring", 5e6);
  const Schedule hd = schedule("level0:NA;level1:H-D_R", 64e6);
  std::vector<double> late(64, 0.0);
  late[5] = 2e-3;
  FlowSimulator reused(net, 1e11, 3e-3);
  for (const auto& [sched, start] : std::vector<std::pair<const Schedule*, std::vector<double>>>{
           {&ring_big, late}, {&ring_small, {}}, {&hd, {}}, {&ring_big, {}}, {&ring_big, late}}) {
    const FlowSimResult fresh = SimulateFlows(net, *sched, 1e11, start, 3e-3);
    const FlowSimResult again = reused.Run(*sched, start);
    EXPECT_EQ(again.time_s, fresh.time_s);
    EXPECT_EQ(again.solves, fresh.solves);
    EXPECT_EQ(again.rank_finish_s, fresh.rank_finish_s);
  }
}

TEST(CommFlowSim, MoreQueuePairsSpreadEcmpCollisions) {
  // HCCL_RDMA_QPS_PER_CONNECTION: each QP hashes to its own spine, so the hash collisions of the
  // one-QP run (a flow sharing an uplink at half rate) average out and the all-reduce gets faster,
  // never faster than the collision-free analytical time.
  const Cluster a2 = testing::Shipped("atlas800t-a2");
  CollectiveSpec spec;
  spec.bytes = 256.0 * 1024 * 1024;
  SimOptions o;
  o.host_dispatch = false;
  o.kind = SimKind::kAnalytical;
  const double analytical = SimulateCollective(a2, 1024, spec, o)->time_s;
  o.kind = SimKind::kFlow;
  const double one = SimulateCollective(a2, 1024, spec, o)->time_s;
  o.qps_per_connection = 4;
  auto four = SimulateCollective(a2, 1024, spec, o);
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_LT(four->time_s, 0.9 * one);
  EXPECT_GT(four->time_s, analytical * (1 - 1e-2));
  // Below HCCL_MULTI_QP_THRESHOLD (512 KB) per transfer a pair keeps one QP: the same flows.
  spec.bytes = 64.0 * 1024;
  o.qps_per_connection = 1;
  const double small_one = SimulateCollective(a2, 1024, spec, o)->time_s;
  o.qps_per_connection = 8;
  EXPECT_EQ(SimulateCollective(a2, 1024, spec, o)->time_s, small_one);
  // Out of HCCL's ranges: a one-line error naming the flag.
  o.qps_per_connection = 33;
  auto bad = SimulateCollective(a2, 1024, spec, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--qps 33"), std::string::npos);
  o.qps_per_connection = 2;
  o.multi_qp_threshold_bytes = 0;
  EXPECT_FALSE(SimulateCollective(a2, 1024, spec, o).ok());
}

}  // namespace
}  // namespace npugap::comm
