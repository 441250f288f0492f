#include <cmath>

#include <gtest/gtest.h>

#include "npugap/comm/data_parallel.h"
#include "npugap/comm/faults.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::Shipped;

CollectiveResult RunAR(const Cluster& c, int ranks, const SimOptions& o, double bytes = 64e6) {
  CollectiveSpec spec;
  spec.bytes = bytes;
  auto r = SimulateCollective(c, ranks, spec, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return *r;
}

TEST(CommFaults, DefaultTimeoutsAreHccls) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const auto t = *AnalyzeTimeouts(a2, RunAR(a2, 16, {}), {}, {});
  EXPECT_EQ(t.connect_effective_s, 140);
  EXPECT_EQ(t.exec_effective_s, 1836);
  EXPECT_NEAR(t.rdma_give_up_s, 8 * 4.096e-6 * std::pow(2, 20), 1e-9);
  EXPECT_TRUE(t.errors.empty());
  const Cluster v910 = Shipped("atlas800-910");
  TimeoutSettings s;
  s.exec_timeout_s = 600;
  EXPECT_EQ(AnalyzeTimeouts(v910, RunAR(v910, 8, {}), {}, s)->exec_effective_s, 544);  // floor(600/68)*68
  s.exec_timeout_s = 10;
  EXPECT_EQ(AnalyzeTimeouts(v910, RunAR(v910, 8, {}), {}, s)->exec_effective_s, 68);
}

TEST(CommFaults, LateRankTripsLinkSetupThenExecution) {
  const Cluster a2 = Shipped("atlas800t-a2");
  SimOptions o;
  o.stragglers = {{5, 150.0}};
  const auto late = *AnalyzeTimeouts(a2, RunAR(a2, 16, o), o, {});
  EXPECT_NEAR(late.connect_margin_s, 140 - 150, 1e-9);
  ASSERT_EQ(late.errors.size(), 1u);
  EXPECT_EQ(late.errors[0].ranks, "all but 5");
  EXPECT_NE(late.errors[0].error_class.find("EI0006"), std::string::npos);
  o.stragglers = {{5, 2000.0}};
  const auto very = *AnalyzeTimeouts(a2, RunAR(a2, 16, o), o, {});
  ASSERT_EQ(very.errors.size(), 2u);
  EXPECT_NE(very.errors[1].error_class.find("EI0002"), std::string::npos);
  EXPECT_LT(very.exec_margin_s, 0);
  TimeoutSettings longer;
  longer.connect_timeout_s = 3600;  // the documented fix
  o.stragglers = {{5, 150.0}};
  EXPECT_TRUE(AnalyzeTimeouts(a2, RunAR(a2, 16, o), o, longer)->errors.empty());
}

TEST(CommFaults, FailedRoceLinkExhaustsRdmaRetries) {
  const Cluster a2 = Shipped("atlas800t-a2");
  SimOptions o;
  o.link_faults = {{9, "scale-out", 0}};
  const CollectiveResult r = RunAR(a2, 16, o);
  EXPECT_TRUE(r.link_failed);
  const auto t = *AnalyzeTimeouts(a2, r, o, {});
  ASSERT_EQ(t.errors.size(), 2u);
  EXPECT_EQ(t.errors[0].ranks, "9 (scale-out)");
  EXPECT_NE(t.errors[0].error_class.find("RDMA retry exhausted"), std::string::npos);
  EXPECT_NEAR(t.errors[0].at_s, 34.36, 0.01);
  EXPECT_NE(t.errors[1].error_class.find("EI0002"), std::string::npos);
  TimeoutSettings bad;
  bad.connect_timeout_s = 60;
  EXPECT_NE(AnalyzeTimeouts(a2, r, o, bad).status().message().find("HCCL_CONNECT_TIMEOUT 60"),
            std::string::npos);
  bad = {};
  bad.rdma_timeout = 22;  // A2: [5, 20]
  EXPECT_FALSE(AnalyzeTimeouts(a2, r, o, bad).ok());
}

TEST(CommDataParallel, BucketsOverlapWithBackward) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const double mib = 1024.0 * 1024;
  DpOptions o;
  o.grad_bytes = 100 * mib;
  o.bucket_bytes = 25 * mib;
  const double t = RunAR(a2, 64, {}, 25 * mib).time_s;
  // Backward much longer than communication: only the last bucket is exposed.
  o.backward_s = 10;
  const DpResult hidden = *ModelDataParallelStep(a2, 64, o);
  EXPECT_EQ(hidden.buckets, 4);
  EXPECT_NEAR(hidden.exposed_comm_s, t, 1e-12);
  EXPECT_NEAR(hidden.scaling_efficiency, 10 / (10 + t), 1e-12);
  // No backward to hide behind: the four all-reduces run back to back.
  o.backward_s = 0;
  o.forward_s = 0.001;
  const DpResult exposed = *ModelDataParallelStep(a2, 64, o);
  EXPECT_NEAR(exposed.step_s, 0.001 + 4 * t, 1e-12);
  EXPECT_NEAR(exposed.scaling_efficiency, 0.001 / (0.001 + 4 * t), 1e-12);
  // Backward equal to two buckets' all-reduce: bucket k ready at k/4 of it.
  o.forward_s = 0;
  o.backward_s = 2 * t;
  const DpResult mid = *ModelDataParallelStep(a2, 64, o);
  double free_at = 0;
  for (int k = 1; k <= 4; ++k) free_at = std::max(free_at, o.backward_s * k / 4) + t;
  EXPECT_NEAR(mid.step_s, free_at, 1e-12);
}

TEST(CommDataParallel, ScalesFrom8To16384) {
  const Cluster a2 = Shipped("atlas800t-a2");
  EXPECT_EQ(DefaultDpRankCounts(a2), (std::vector<int>{8, 16, 64, 384, 1024, 4096, 16384}));
  EXPECT_EQ(DefaultDpRankCounts(Shipped("atlas800-910")), (std::vector<int>{8, 16, 64, 384, 1024, 4096}));
  DpOptions o;
  o.grad_bytes = 1.4e9;
  o.backward_s = 0.2;
  double previous = 1;
  for (int n : DefaultDpRankCounts(a2)) {
    const DpResult r = *ModelDataParallelStep(a2, n, o);
    EXPECT_GT(r.scaling_efficiency, 0);
    EXPECT_LE(r.scaling_efficiency, previous + 1e-12) << n;
    previous = r.scaling_efficiency;
  }
  o.grad_bytes = 0;
  EXPECT_NE(ModelDataParallelStep(a2, 8, o).status().message().find("--grad-bytes 0"), std::string::npos);
}

}  // namespace
}  // namespace npugap::comm
