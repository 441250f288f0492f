#include <gtest/gtest.h>

#include "npugap/comm/cluster.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::Shipped;

TEST(CommCluster, LoadsEveryShippedClusterWithSources) {
  const auto names = ListClusters(FindClustersDir());
  ASSERT_EQ(names, (std::vector<std::string>{"atlas800-910", "atlas800t-a2", "atlas900-a3-superpod",
                                             "dgx-a100", "dgx-h100"}));
  for (const auto& n : names) {
    const Cluster c = Shipped(n);
    EXPECT_EQ(c.name, n);
    for (const Level& l : c.levels) {
      EXPECT_FALSE(l.bandwidth_gbps.source.empty()) << n << " " << l.name;
      EXPECT_GT(l.bandwidth_gbps.value, 0) << n;
    }
  }
}

TEST(CommCluster, ShippedNumbersMatchTheResearchNotes) {
  const Cluster a2 = Shipped("atlas800t-a2");
  EXPECT_EQ(a2.levels[0].kind, LevelKind::kFullMesh);
  EXPECT_DOUBLE_EQ(a2.levels[0].bandwidth_gbps.value, 18.6);
  EXPECT_NEAR(a2.levels[0].bandwidth_gbps.value * 8, 149, 0.5);
  EXPECT_EQ(a2.hccl.buffsize_mb.value, 200);
  EXPECT_EQ(a2.hccl.connect_timeout_s.value, 120);
  EXPECT_EQ(a2.hccl.exec_timeout_s.value, 1836);
  EXPECT_EQ(a2.hccl.exec_timeout_s.confidence, Confidence::kOfficial);
  const Cluster a3 = Shipped("cloudmatrix384");  // alias
  EXPECT_EQ(a3.name, "atlas900-a3-superpod");
  EXPECT_EQ(a3.levels[0].bandwidth_gbps.value, 392);
  EXPECT_EQ(a3.levels[2].bandwidth_gbps.value, 400.0 / 8);
  const Cluster v910 = Shipped("atlas800-910");
  EXPECT_EQ(v910.hccl.exec_timeout_granularity_s, 68);
  EXPECT_EQ(v910.levels[2].bandwidth_gbps.value, 100.0 / 8);
}

TEST(CommCluster, UnknownNameListsTheValidOnes) {
  auto c = LoadCluster("atlas9000", FindClustersDir());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown cluster 'atlas9000'"), std::string::npos);
  EXPECT_NE(c.status().message().find("atlas800t-a2"), std::string::npos);
}

TEST(CommCluster, EveryNumberNeedsASourceAndConfidence) {
  const std::string good = R"({"value": 1, "source": "x", "confidence": "assumed"})";
  auto doc = [&](const std::string& bw) {
    return R"({"name": "t", "family": "A2", "npus_per_server": 1, "max_npus": )" + good +
           R"(, "reduce_gbps": )" + good +
           R"(, "levels": [{"name": "f", "kind": "fabric", "bandwidth_gbps": )" + bw + R"(, "latency_us": )" +
           good + R"(}], "fabric": {"nics_per_leaf": 2, "oversubscription": )" + good +
           R"(, "leaves_per_pod": 2,
           "core_oversubscription": )" +
           good + R"(, "hop_latency_us": )" + good + R"(}, "hccl": {"buffsize_mb": )" + good +
           R"(, "connect_timeout_s": )" + good + R"(, "exec_timeout_s": )" + good + R"(, "rdma_timeout": )" +
           good + R"(, "rdma_retry_cnt": )" + good + "}}";
  };
  EXPECT_TRUE(ParseCluster(doc(good), "t.json").ok());
  auto no_source = ParseCluster(doc(R"({"value": 1, "confidence": "official"})"), "t.json");
  ASSERT_FALSE(no_source.ok());
  EXPECT_EQ(no_source.status().message(), "t.json: levels[0].bandwidth_gbps: missing 'source'");
  auto bad_conf = ParseCluster(doc(R"({"value": 1, "source": "s", "confidence": "vendor"})"), "t.json");
  ASSERT_FALSE(bad_conf.ok());
  EXPECT_NE(bad_conf.status().message().find("'vendor' is not one of official"), std::string::npos);
  EXPECT_FALSE(ParseCluster("{not json", "t.json").ok());
}

TEST(CommCluster, LayoutSplitsRanksOverLevels) {
  const Cluster a2 = Shipped("atlas800t-a2");
  auto l16 = MakeLayout(a2, 16);
  ASSERT_TRUE(l16.ok());
  EXPECT_EQ(l16->sizes, (std::vector<int>{8, 2}));
  EXPECT_EQ(l16->CrossLevel(0, 7), 0u);
  EXPECT_EQ(l16->CrossLevel(3, 11), 1u);
  EXPECT_EQ(MakeLayout(a2, 4)->sizes, (std::vector<int>{4}));
  const Cluster a3 = Shipped("atlas900-a3-superpod");
  EXPECT_EQ(MakeLayout(a3, 768)->sizes, (std::vector<int>{8, 48, 2}));
  EXPECT_EQ(MakeLayout(a3, 64)->sizes, (std::vector<int>{8, 8}));
  const Cluster v910 = Shipped("atlas800-910");
  EXPECT_EQ(MakeLayout(v910, 16)->sizes, (std::vector<int>{4, 2, 2}));
}

TEST(CommCluster, RanksThatDoNotFitAreRejected) {
  const Cluster a2 = Shipped("atlas800t-a2");
  auto twelve = MakeLayout(a2, 12);
  ASSERT_FALSE(twelve.ok());
  EXPECT_NE(twelve.status().message().find("multiple of 8"), std::string::npos);
  EXPECT_FALSE(MakeLayout(a2, 0).ok());
  EXPECT_FALSE(MakeLayout(a2, 65536).ok());
  auto six = MakeLayout(Shipped("atlas800-910"), 6);
  ASSERT_FALSE(six.ok());
  EXPECT_NE(six.status().message().find("allows 1, 2, 4, 8"), std::string::npos);
}

}  // namespace
}  // namespace npugap::comm
