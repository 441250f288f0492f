#include <gtest/gtest.h>

#include "npugap/comm/collective.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::Shipped;

std::string ErrorOf(const std::string& text) {
  auto r = ParseHcclAlgo(text);
  return r.ok() ? "" : r.status().message();
}

TEST(CommHcclAlgo, ParsesTheDocumentedSyntax) {
  auto a = ParseHcclAlgo("level0:NA;level1:H-D_R");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->For(Op::kAllReduce), (std::vector<Algo>{Algo::kAuto, Algo::kHD}));
  auto per_op = ParseHcclAlgo("allreduce=level0:NA;level1:ring/alltoall=level0:NA;level1:pairwise");
  ASSERT_TRUE(per_op.ok());
  EXPECT_EQ(per_op->For(Op::kAllReduce)[1], Algo::kRing);
  EXPECT_EQ(per_op->For(Op::kAllToAllV)[1], Algo::kPairwise);
  EXPECT_TRUE(per_op->For(Op::kBroadcast).empty());
  auto three = ParseHcclAlgo("level0:NA;level1:NB;level2:NHR");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->For(Op::kAllGather)[2], Algo::kNHR);
}

TEST(CommHcclAlgo, RejectsWhatDoesNotParse) {
  EXPECT_NE(ErrorOf("level0:ring").find("level0 accepts only NA"), std::string::npos);
  EXPECT_NE(ErrorOf("level1:fast").find("unknown algorithm 'fast' (valid: NA, ring, H-D_R"),
            std::string::npos);
  EXPECT_NE(ErrorOf("lvl1:ring").find("is not levelN:ALGO"), std::string::npos);
  EXPECT_NE(ErrorOf("level7:ring").find("level0, level1 or level2"), std::string::npos);
  EXPECT_NE(ErrorOf("level1:AHC").find("not modelled"), std::string::npos);
  EXPECT_NE(ErrorOf("gather=level1:ring").find("unknown op 'gather'"), std::string::npos);
}

TEST(CommHcclAlgo, DefaultsFollowHcclsDocumentedSelection) {
  const Cluster v910 = Shipped("atlas800-910");
  auto plan16 = SelectPlan(v910, *MakeLayout(v910, 16), Op::kAllReduce, 1 << 20, {});
  ASSERT_TRUE(plan16.ok());
  EXPECT_EQ(plan16->Describe(), "level0:fullmesh;level1:ring;level2:H-D_R");  // 2 servers: power of two
  auto plan24 = SelectPlan(v910, *MakeLayout(v910, 24), Op::kAllReduce, 1 << 20, {});
  EXPECT_EQ(plan24->levels[2], Algo::kRing);  // 3 servers: ring
  const Cluster a2 = Shipped("atlas800t-a2");
  EXPECT_EQ(SelectPlan(a2, *MakeLayout(a2, 64), Op::kAllReduce, 1 << 20, {})->Describe(),
            "level0:fullmesh;level1:NHR");
  auto user = ParseHcclAlgo("level0:NA;level1:ring");
  EXPECT_EQ(SelectPlan(a2, *MakeLayout(a2, 64), Op::kAllReduce, 1 << 20, *user)->Describe(),
            "level0:fullmesh;level1:ring");
  EXPECT_EQ(SelectPlan(a2, *MakeLayout(a2, 64), Op::kAllToAll, 1 << 20, {})->Describe(), "level0:pairwise");
  EXPECT_EQ(SelectPlan(a2, *MakeLayout(a2, 8), Op::kAllToAll, 1 << 20, {})->Describe(), "level0:fullmesh");
}

TEST(CommHcclAlgo, A2InterServerDefaultFollowsHcclsSizeAndCostRules) {
  const Cluster a2 = Shipped("atlas800t-a2");
  auto algo = [&](int ranks, Op op, double bytes) {
    return SelectPlan(a2, *MakeLayout(a2, ranks), op, bytes, {})->Describe();
  };
  const double MiB = 1024.0 * 1024;
  // All-reduce: pipeline once a slice (bytes / ranks) reaches 2 MiB.
  EXPECT_EQ(algo(32, Op::kAllReduce, 64 * MiB), "level0:pipeline;level1:pipeline");
  EXPECT_EQ(algo(32, Op::kAllReduce, 63 * MiB), "level0:fullmesh;level1:NHR");
  // Below it, HCCL's α-β costs: 2 or 3 servers tie ring and NHR, and ties go to ring.
  EXPECT_EQ(algo(16, Op::kAllReduce, 1 * MiB), "level0:fullmesh;level1:ring");
  EXPECT_EQ(algo(24, Op::kAllReduce, 1 * MiB), "level0:fullmesh;level1:ring");
  EXPECT_EQ(algo(40, Op::kAllReduce, 1 * MiB), "level0:fullmesh;level1:NHR");
  // All-gather and reduce-scatter: pipeline from 2 MiB per rank.
  EXPECT_EQ(algo(32, Op::kAllGather, 32 * 2 * MiB), "level0:pipeline;level1:pipeline");
  EXPECT_EQ(algo(32, Op::kReduceScatter, 32 * MiB), "level0:fullmesh;level1:NHR");
  // The pipeline's tasks must fit the FFTS+ graph: (m * 43 + 5) * 2 <= 65,535 for 8 NPUs per server,
  // so 761 servers still pipeline and 763 do not.
  EXPECT_EQ(algo(761 * 8, Op::kAllReduce, 761 * 8 * 2 * MiB), "level0:pipeline;level1:pipeline");
  EXPECT_EQ(algo(763 * 8, Op::kAllReduce, 763 * 8 * 2 * MiB), "level0:fullmesh;level1:NHR");
  // Broadcast: ring or H-D_R only; on 3 servers H-D_R's extra copy loses to ring's extra α only for
  // large buffers.
  EXPECT_EQ(algo(64, Op::kBroadcast, 1 * MiB), "level0:fullmesh;level1:H-D_R");
  EXPECT_EQ(algo(24, Op::kBroadcast, 1024), "level0:fullmesh;level1:H-D_R");
  EXPECT_EQ(algo(24, Op::kBroadcast, 100 * MiB), "level0:fullmesh;level1:ring");
  // HCCL_ALGO switches the selection off.
  EXPECT_EQ(
      SelectPlan(a2, *MakeLayout(a2, 32), Op::kAllReduce, 64 * MiB, *ParseHcclAlgo("level0:NA;level1:NHR"))
          ->Describe(),
      "level0:fullmesh;level1:NHR");
}

TEST(CommHcclAlgo, A3DefaultsFollowHcclsServerCountRules) {
  const Cluster a3 = Shipped("atlas900-a3-superpod");  // 8 NPUs per server, 48 servers per supernode
  const double MiB = 1024.0 * 1024;
  struct Case {
    int ranks;
    Op op;
    double bytes;
    const char* plan;
  };
  const Case cases[] = {
      // Between servers: H-D (run as NHR by the 910_93 operators) at a power of two or from 8
      // servers, ring at 3, 5, 6 or 7 servers.
      {32, Op::kAllReduce, 64 * MiB, "level0:fullmesh;level1:NHR"},
      {24, Op::kAllReduce, 64 * MiB, "level0:fullmesh;level1:ring"},
      {56, Op::kAllGather, 64 * MiB, "level0:fullmesh;level1:ring"},
      {72, Op::kAllReduce, 64 * MiB, "level0:fullmesh;level1:NHR"},
      // A small all-reduce (up to 1 MiB per NPU of a server) inside one supernode takes NHR.
      {24, Op::kAllReduce, 8 * MiB, "level0:fullmesh;level1:NHR"},
      {24, Op::kAllReduce, 8 * MiB + 1, "level0:fullmesh;level1:ring"},
      // Between supernodes: H-D_R at a power of two or from 8 supernodes, ring otherwise.
      {2 * 384, Op::kAllReduce, 64 * MiB, "level0:fullmesh;level1:NHR;level2:H-D_R"},
      {3 * 384, Op::kAllReduce, 64 * MiB, "level0:fullmesh;level1:NHR;level2:ring"},
  };
  for (const Case& c : cases) {
    auto plan = SelectPlan(a3, *MakeLayout(a3, c.ranks), c.op, c.bytes, {});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->Describe(), c.plan) << c.ranks << " ranks, " << OpName(c.op) << " " << c.bytes;
  }
}

TEST(CommHcclAlgo, A3ReduceScatterBroadcastAndReduceFollowTheir91093Operators) {
  const Cluster a3 = Shipped("atlas900-a3-superpod");
  const double MiB = 1024.0 * 1024;
  struct Case {
    int ranks;
    Op op;
    const char* algo;  // HCCL_ALGO, "" for the defaults
    const char* plan;
  };
  const Case cases[] = {
      // Reduce-scatter: the V1 default (H-D at a power of two or from 8 servers, else ring), H-D run
      // as NHR, a requested H-D too; ring stays ring.
      {32, Op::kReduceScatter, "", "level0:fullmesh;level1:NHR"},
      {24, Op::kReduceScatter, "", "level0:fullmesh;level1:ring"},
      {24, Op::kReduceScatter, "level0:NA;level1:H-D_R", "level0:fullmesh;level1:NHR"},
      {32, Op::kReduceScatter, "level0:NA;level1:ring", "level0:fullmesh;level1:ring"},
      // Broadcast: only NHR or NB between servers; anything else becomes NHR.
      {24, Op::kBroadcast, "", "level0:fullmesh;level1:NHR"},
      {32, Op::kBroadcast, "level0:NA;level1:ring", "level0:fullmesh;level1:NHR"},
      {32, Op::kBroadcast, "level0:NA;level1:NB", "level0:fullmesh;level1:NB"},
      // Reduce: ring between servers, whatever was asked for.
      {32, Op::kReduce, "", "level0:fullmesh;level1:ring"},
      {32, Op::kReduce, "level0:NA;level1:H-D_R", "level0:fullmesh;level1:ring"},
      // All-reduce: a requested H-D runs as NHR as well.
      {32, Op::kAllReduce, "level0:NA;level1:H-D_R", "level0:fullmesh;level1:NHR"},
      // Level 2 (between supernodes) is left as asked.
      {2 * 384, Op::kReduce, "level0:NA;level1:NA;level2:H-D_R", "level0:fullmesh;level1:ring;level2:H-D_R"},
  };
  for (const Case& c : cases) {
    auto plan = SelectPlan(a3, *MakeLayout(a3, c.ranks), c.op, 64 * MiB, *ParseHcclAlgo(c.algo));
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->Describe(), c.plan) << c.ranks << " ranks, " << OpName(c.op) << " '" << c.algo << "'";
  }
}

TEST(CommHcclAlgo, AlgorithmsOnlyWhereHcclAllowsThem) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const Layout l = *MakeLayout(a2, 64);
  auto pairwise = SelectPlan(a2, l, Op::kAllReduce, 1, *ParseHcclAlgo("level0:NA;level1:pairwise"));
  ASSERT_FALSE(pairwise.ok());
  EXPECT_NE(pairwise.status().message().find("pairwise applies to alltoall only"), std::string::npos);
  EXPECT_FALSE(
      SelectPlan(a2, l, Op::kBroadcast, 1, *ParseHcclAlgo("broadcast=level0:NA;level1:pipeline")).ok());
  // Falls back to HCCL's broadcast default: H-D_R beats ring on 8 servers (a power of two).
  EXPECT_EQ(SelectPlan(a2, l, Op::kBroadcast, 1, *ParseHcclAlgo("level0:NA;level1:pipeline"))->levels[1],
            Algo::kHD);
  EXPECT_FALSE(SelectPlan(a2, l, Op::kAllToAll, 1, *ParseHcclAlgo("alltoall=level0:NA;level1:ring")).ok());
  EXPECT_EQ(SelectPlan(a2, l, Op::kAllToAll, 1, *ParseHcclAlgo("level0:NA;level1:ring"))->levels[0],
            Algo::kPairwise);
  const Cluster v910 = Shipped("atlas800-910");  // HCCS group, PCIe, fabric: three levels
  auto three =
      SelectPlan(v910, *MakeLayout(v910, 16), Op::kAllReduce, 1, *ParseHcclAlgo("level0:NA;level1:pipeline"));
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.status().message().find("pipeline needs exactly two levels"), std::string::npos);
  EXPECT_EQ(SelectPlan(a2, l, Op::kAllReduce, 1, *ParseHcclAlgo("level0:NA;level1:pipeline"))->levels[0],
            Algo::kPipeline);
}

TEST(CommHcclAlgo, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(BusBwFactor(Op::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(BusBwFactor(Op::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusBwFactor(Op::kAllToAll, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(BusBwFactor(Op::kBroadcast, 8), 1);
  auto bad = ParseOp("allreduse");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("valid: allreduce, allgather"), std::string::npos);
}

}  // namespace
}  // namespace npugap::comm
