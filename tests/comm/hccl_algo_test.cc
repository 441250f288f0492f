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

TEST(CommHcclAlgo, AlgorithmsOnlyWhereHcclAllowsThem) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const Layout l = *MakeLayout(a2, 64);
  auto pairwise = SelectPlan(a2, l, Op::kAllReduce, 1, *ParseHcclAlgo("level0:NA;level1:pairwise"));
  ASSERT_FALSE(pairwise.ok());
  EXPECT_NE(pairwise.status().message().find("pairwise applies to alltoall only"), std::string::npos);
  EXPECT_FALSE(
      SelectPlan(a2, l, Op::kBroadcast, 1, *ParseHcclAlgo("broadcast=level0:NA;level1:pipeline")).ok());
  EXPECT_EQ(SelectPlan(a2, l, Op::kBroadcast, 1, *ParseHcclAlgo("level0:NA;level1:pipeline"))->levels[1],
            Algo::kNHR);
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
