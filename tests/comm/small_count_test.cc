// HCCL's small-count all-reduce inside one 910B server (AllReduceMeshSmallCountExecutor with the
// AllReduceReduceBcast template): selected at most 256 KiB, timed as a reduce into rank 0 then a
// copy back, and charged its share of the host dispatch by the tasks its root issues.
#include <gtest/gtest.h>

#include "npugap/comm/schedule.h"
#include "npugap/comm/simulate.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

using testing::Shipped;

std::string PlanOf(const Cluster& c, int ranks, Op op, double bytes) {
  return SelectPlan(c, *MakeLayout(c, ranks), op, bytes, {})->Describe();
}

TEST(CommSmallCount, SelectedForOneServerAllReduceUpTo256KiB) {
  const Cluster a2 = Shipped("atlas800t-a2");
  EXPECT_EQ(PlanOf(a2, 8, Op::kAllReduce, 8192), "level0:reduce-bcast");
  EXPECT_EQ(PlanOf(a2, 8, Op::kAllReduce, 256 * 1024), "level0:reduce-bcast");
  EXPECT_EQ(PlanOf(a2, 8, Op::kAllReduce, 256 * 1024 + 1), "level0:fullmesh");
  EXPECT_EQ(PlanOf(a2, 4, Op::kAllReduce, 8192), "level0:reduce-bcast");
  // Not for other collectives, nor across servers, nor on other product families.
  EXPECT_EQ(PlanOf(a2, 8, Op::kAllGather, 8192), "level0:fullmesh");
  EXPECT_EQ(PlanOf(a2, 16, Op::kAllReduce, 8192).rfind("level0:fullmesh;", 0), 0u);
  // A3 (910_93): more than 2 ranks in one server, at most 512 KiB per rank.
  const Cluster a3 = Shipped("atlas900-a3-superpod");
  EXPECT_EQ(PlanOf(a3, 4, Op::kAllReduce, 2 * 1024 * 1024), "level0:reduce-bcast");
  EXPECT_EQ(PlanOf(a3, 4, Op::kAllReduce, 2 * 1024 * 1024 + 1), "level0:fullmesh");
  EXPECT_EQ(PlanOf(a3, 2, Op::kAllReduce, 8192), "level0:fullmesh");
  EXPECT_EQ(PlanOf(a3, 16, Op::kAllReduce, 8192).find("reduce-bcast"), std::string::npos);
  const Cluster v910 = Shipped("atlas800-910");
  EXPECT_EQ(PlanOf(v910, 8, Op::kAllReduce, 8192).find("reduce-bcast"), std::string::npos);
  // HCCL_ALGO cannot name it (it is an executor, not a level algorithm).
  EXPECT_FALSE(ParseHcclAlgo("level0:NA;level1:reduce-bcast").ok());
}

TEST(CommSmallCount, ScheduleReducesIntoRankZeroThenCopiesBack) {
  const Cluster a2 = Shipped("atlas800t-a2");
  CollectiveSpec spec;
  spec.bytes = 8192;
  auto s = BuildSchedule(*MakeLayout(a2, 8), spec, Plan{{Algo::kReduceBcast}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->steps, 2);
  ASSERT_EQ(s->transfers.size(), 14u);
  for (const Transfer& t : s->transfers) {
    EXPECT_EQ(t.bytes, 8192);
    if (t.step == 0) {  // every peer reduces its whole buffer into rank 0
      EXPECT_EQ(t.dst, 0);
      EXPECT_EQ(t.reduce_bytes, 8192);
    } else {  // and reads the result back
      EXPECT_EQ(t.src, 0);
      EXPECT_EQ(t.reduce_bytes, 0);
    }
  }
}

TEST(CommSmallCount, TimeIsTwoMeshStepsPlusTheRootsShareOfTheDispatch) {
  const Cluster a2 = Shipped("atlas800t-a2");
  const double n = 8192, p = 8;
  const double alpha = a2.levels[0].latency_us.value * 1e-6, b = a2.levels[0].bandwidth_gbps.value * 1e9;
  const double g = a2.reduce_gbps.value * 1e9;
  // Tasks counted in the cann-hccl templates: root of AllReduceReduceBcast 2 + 12(p-1) = 86,
  // a rank of AllReduceMeshDirect (the loop executor the dispatch was calibrated on) 4 + 26(p-1) = 186.
  const double dispatch = a2.hccl.dispatch_us.value * 1e-6 * 86 / 186;
  const double device = 2 * (alpha + n / b) + (p - 1) * n / g;
  CollectiveSpec spec;
  spec.bytes = n;
  for (SimKind kind : {SimKind::kAnalytical, SimKind::kFlow}) {
    SimOptions o;
    o.kind = kind;
    const CollectiveResult r = *SimulateCollective(a2, 8, spec, o);
    EXPECT_EQ(r.algo, "level0:reduce-bcast");
    EXPECT_NEAR(r.dispatch_s, dispatch, 1e-12);
    EXPECT_NEAR(r.time_s, dispatch + device, (dispatch + device) * (kind == SimKind::kFlow ? 1e-3 : 1e-9));
  }
  EXPECT_DOUBLE_EQ(DispatchScale(Plan{{Algo::kMesh}}, 8), 1);
  EXPECT_DOUBLE_EQ(DispatchScale(Plan{{Algo::kReduceBcast}}, 2), 14.0 / 30);
}

}  // namespace
}  // namespace npugap::comm
