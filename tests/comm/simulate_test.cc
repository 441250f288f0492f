// Analytical model against HCCL's formulas, and the analytical model against the flow-level
// simulator where nothing is congested (one leaf: the fabric is non-blocking).
#include <cmath>

#include <gtest/gtest.h>

#include "npugap/comm/simulate.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::Shipped;
using testing::SwitchCluster;

double Time(const Cluster& c, int ranks, Op op, double bytes, SimKind kind, const std::string& algo = "",
            SimOptions o = {}) {
  CollectiveSpec spec;
  spec.op = op;
  spec.bytes = bytes;
  o.kind = kind;
  o.algo = *ParseHcclAlgo(algo);
  o.host_dispatch = false;  // the formulas are device time; dispatch has its own test
  auto r = SimulateCollective(c, ranks, spec, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->time_s : -1;
}

TEST(CommSimulate, RingAllReduceMatchesTheTextbookFormula) {
  // 16 servers of one NPU each on one leaf: a flat ring over the NICs.
  const double B = 25e9, alpha = 10e-6, gamma = 200e9;
  const Cluster c = testing::FabricCluster(B / 1e9, alpha * 1e6, 64, 1, gamma / 1e9);
  const int p = 16;
  for (double S : {1e3, 1e6, 64e6}) {
    const double expected = 2 * (p - 1) * alpha + 2.0 * (p - 1) / p * S / B + (p - 1.0) / p * S / gamma;
    EXPECT_NEAR(Time(c, p, Op::kAllReduce, S, SimKind::kAnalytical, "level0:NA;level1:ring"), expected,
                expected * 1e-9);
    EXPECT_NEAR(Time(c, p, Op::kAllReduce, S, SimKind::kFlow, "level0:NA;level1:ring"), expected,
                expected * 1e-4);
  }
}

TEST(CommSimulate, HcclFormulasForLogStepAlgorithms) {
  const double B = 25e9, alpha = 10e-6, gamma = 1e18;
  const Cluster c = testing::FabricCluster(B / 1e9, alpha * 1e6, 64, 1, gamma / 1e9);
  const double S = 32e6;
  // NHR / NB all-reduce: 2 ceil(log2 p) α + 2 (p-1)/p S β
  for (int p : {8, 12}) {
    const double k = std::ceil(std::log2(p));
    const double expected = 2 * k * alpha + 2.0 * (p - 1) / p * S / B + (p - 1.0) / p * S / gamma;
    EXPECT_NEAR(Time(c, p, Op::kAllReduce, S, SimKind::kAnalytical, "level0:NA;level1:NHR"), expected,
                expected * 1e-9);
    EXPECT_NEAR(Time(c, p, Op::kAllReduce, S, SimKind::kAnalytical, "level0:NA;level1:NB"), expected,
                expected * 1e-9);
  }
  // H-D_R reduce-scatter at p = 2^k: log p α + (p-1)/p S β; broadcast: ceil(log p)(α + S β)
  EXPECT_NEAR(Time(c, 16, Op::kReduceScatter, S, SimKind::kAnalytical, "level0:NA;level1:H-D_R"),
              4 * alpha + 15.0 / 16 * S * (1 / B + 1 / gamma), 1e-12);
  EXPECT_NEAR(Time(c, 10, Op::kBroadcast, S, SimKind::kAnalytical, "level0:NA;level1:H-D_R"),
              4 * (alpha + S / B), 1e-12);
}

TEST(CommSimulate, MeshAllReduceInsideAnA2Server) {
  // HCCL's Mesh: 2α + (2/p) S β + (p-1)/p S γ with β per pair link.
  const Cluster a2 = Shipped("atlas800t-a2");
  const double S = 128.0 * 1024 * 1024, p = 8;  // one HCCL_BUFFSIZE round
  const double alpha = a2.levels[0].latency_us.value * 1e-6, b = a2.levels[0].bandwidth_gbps.value * 1e9;
  const double g = a2.reduce_gbps.value * 1e9;
  const double expected = 2 * alpha + 2 / p * S / b + (p - 1) / p * S / g;
  EXPECT_NEAR(Time(a2, 8, Op::kAllReduce, S, SimKind::kAnalytical), expected, expected * 1e-9);
  EXPECT_NEAR(Time(a2, 8, Op::kAllReduce, S, SimKind::kFlow), expected, expected * 1e-4);
}

TEST(CommSimulate, NcclReferenceHasNoReductionTermAndNoBufferRounds) {
  // NCCL: time = latency steps + bytes / bw (tuning.cc); ring all-reduce over NVSwitch.
  const Cluster h100 = Shipped("dgx-h100");
  const double S = 1024.0 * 1024 * 1024, p = 8;
  const double alpha = h100.levels[0].latency_us.value * 1e-6, B = h100.levels[0].bandwidth_gbps.value * 1e9;
  const double expected = 2 * (p - 1) * alpha + 2 * (p - 1) / p * S / B;
  EXPECT_NEAR(Time(h100, 8, Op::kAllReduce, S, SimKind::kAnalytical), expected, expected * 1e-9);
  EXPECT_NEAR(Time(h100, 8, Op::kAllReduce, S, SimKind::kFlow), expected, expected * 1e-3);
}

TEST(CommSimulate, AnalyticalAndFlowAgreeWithinOnePercentWhenNothingIsCongested) {
  // Shipped A2 and A3 with every rank under one leaf (64 NICs per leaf): no shared fabric links.
  struct Case {
    const char* cluster;
    int ranks;
    const char* algo;
  };
  const Case cases[] = {{"atlas800t-a2", 64, ""},
                        {"atlas800t-a2", 24, "level0:NA;level1:H-D_R"},
                        {"atlas800t-a2", 48, "level0:NA;level1:ring"},
                        {"atlas800t-a2", 40, "level0:NA;level1:NB"},
                        {"atlas800t-a2", 32, "level0:NA;level1:pipeline"},
                        {"atlas800-910", 32, ""},
                        {"atlas900-a3-superpod", 64, ""},
                        {"dgx-h100", 16, ""}};
  for (const Case& k : cases) {
    const Cluster c = Shipped(k.cluster);
    for (Op op :
         {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kBroadcast, Op::kReduce, Op::kAllToAll}) {
      const std::string algo = k.algo;  // a global HCCL_ALGO falls back to defaults where it does not apply
      for (double S : {64.0 * 1024, 64.0 * 1024 * 1024}) {
        const double a = Time(c, k.ranks, op, S, SimKind::kAnalytical, algo);
        const double f = Time(c, k.ranks, op, S, SimKind::kFlow, algo);
        EXPECT_NEAR(f / a, 1.0, 0.01)
            << k.cluster << " " << k.ranks << " " << OpName(op) << " " << algo << " S=" << S;
      }
    }
  }
}

TEST(CommSimulate, HostDispatchIsAddedOncePerCollective) {
  const Cluster a2 = Shipped("atlas800t-a2");
  ASSERT_GT(a2.hccl.dispatch_us.value, 0);
  EXPECT_EQ(a2.hccl.dispatch_us.confidence, Confidence::kDerived);
  CollectiveSpec spec;
  spec.bytes = 1024.0 * 1024 * 1024;  // 6 HCCL_BUFFSIZE rounds: still one dispatch
  for (SimKind kind : {SimKind::kAnalytical, SimKind::kFlow}) {
    SimOptions o;
    o.kind = kind;
    const CollectiveResult with = *SimulateCollective(a2, 16, spec, o);
    o.host_dispatch = false;
    const CollectiveResult without = *SimulateCollective(a2, 16, spec, o);
    EXPECT_EQ(with.rounds, 6);
    EXPECT_NEAR(with.time_s - without.time_s, a2.hccl.dispatch_us.value * 1e-6, 1e-12);
    EXPECT_DOUBLE_EQ(with.dispatch_s, a2.hccl.dispatch_us.value * 1e-6);
    EXPECT_EQ(without.dispatch_s, 0);
  }
  // A cluster file without the field dispatches for free and says so.
  EXPECT_EQ(testing::FabricCluster(25, 10, 64, 1).hccl.dispatch_us.value, 0);
}

TEST(CommSimulate, BuffsizeSplitsIntoRoundsWithASyncEach) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const double mib = 1024.0 * 1024;
  SimOptions o;
  o.buffsize_bytes = 100 * mib;
  const double whole = Time(a2, 16, Op::kAllReduce, 350 * mib, SimKind::kAnalytical, "", o);
  const double one = Time(a2, 16, Op::kAllReduce, 100 * mib, SimKind::kAnalytical, "", o);
  const double half = Time(a2, 16, Op::kAllReduce, 50 * mib, SimKind::kAnalytical, "", o);
  const double sync = 2 * a2.levels[1].latency_us.value * 1e-6;
  EXPECT_NEAR(whole, 3 * one + half + 3 * sync, 1e-12);
  CollectiveSpec spec;
  spec.bytes = 350 * mib;
  EXPECT_EQ(SimulateCollective(a2, 16, spec, o)->rounds, 4);
  const double flow = Time(a2, 16, Op::kAllReduce, 350 * mib, SimKind::kFlow, "", o);
  EXPECT_NEAR(flow / whole, 1, 0.01);
}

TEST(CommSimulate, StragglerDelaysTheWholeCollective) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const double S = 64e6;
  SimOptions o;
  const double base_a = Time(a2, 16, Op::kAllReduce, S, SimKind::kAnalytical);
  const double base_f = Time(a2, 16, Op::kAllReduce, S, SimKind::kFlow);
  o.stragglers = {{3, 5e-3}};
  EXPECT_NEAR(Time(a2, 16, Op::kAllReduce, S, SimKind::kAnalytical, "", o), base_a + 5e-3, 1e-12);
  EXPECT_NEAR(Time(a2, 16, Op::kAllReduce, S, SimKind::kFlow, "", o), base_f + 5e-3, (base_f + 5e-3) * 1e-3);
  const auto random = RandomStragglers(16, 3, 1e-3, 7);
  ASSERT_EQ(random.size(), 3u);
  for (const auto& s : random) EXPECT_LE(s.delay_s, 1e-3);
}

TEST(CommSimulate, DegradedNicSlowsTheRing) {
  // Ring over 8 single-NPU servers: halving one NIC halves the bandwidth term.
  const double B = 25e9, alpha = 5e-6;
  const Cluster c = testing::FabricCluster(B / 1e9, alpha * 1e6, 64, 1, 1e9);
  const int p = 8;
  const double S = 64e6;
  SimOptions o;
  o.link_faults = {{2, "scale-out", 0.5}};
  const double expected = 2 * (p - 1) * alpha + 2.0 * (p - 1) / p * S / (B / 2);
  EXPECT_NEAR(Time(c, p, Op::kAllReduce, S, SimKind::kAnalytical, "level0:NA;level1:ring", o), expected,
              1e-9);
  EXPECT_NEAR(Time(c, p, Op::kAllReduce, S, SimKind::kFlow, "level0:NA;level1:ring", o), expected,
              expected * 1e-3);
}

TEST(CommSimulate, BadRequestsNameTheValue) {
  const Cluster a2 = Shipped("atlas800t-a2");
  CollectiveSpec spec;
  spec.bytes = 0;
  auto zero = SimulateCollective(a2, 8, spec, {});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(), "--bytes 0: must be > 0");
  spec.bytes = 1;
  spec.op = Op::kBroadcast;
  spec.root = 9;
  EXPECT_NE(SimulateCollective(a2, 8, spec, {}).status().message().find("--root 9"), std::string::npos);
  SimOptions o;
  o.stragglers = {{99, 1}};
  spec.root = 0;
  EXPECT_NE(SimulateCollective(a2, 8, spec, o).status().message().find("--straggler 99"), std::string::npos);
  EXPECT_FALSE(ParseSimKind("packet").ok());
}

}  // namespace
}  // namespace npugap::comm
