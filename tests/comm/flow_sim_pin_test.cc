// Regression pins for the flow-level simulator: the exact (bit-for-bit) simulated times of a set
// of collectives, recorded from the simulator before its speed work (commit 52b043f). The speed
// changes must not move a single bit of the result; a deliberate change of the model re-records
// them (NPUGAP_PRINT_PINS=1 prints the current values in this file's format).
// The times were recorded from the Release build (-O3 -march=x86-64-v3), where GCC contracts a * b + c
// into FMAs; the sanitizer build (-O1) does not contract, which moves the last bits of some times.
// The Release build must reproduce the pins bit for bit; other builds within 1e-12 relative (the
// solve counts, which any change of event order would move, stay exact everywhere).
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "npugap/comm/simulate.h"
#include "test_clusters.h"

namespace npugap::comm {
namespace {

// The build the pins were recorded with: optimised at -O2 or above (GCC defines __OPTIMIZE__ from -O1
// on, so the sanitizer build is told apart by ASan's own macro).
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
constexpr bool kBitExactBuild = false;
#else
constexpr bool kBitExactBuild = true;
#endif

struct Pin {
  const char* name;
  Cluster cluster;
  int ranks;
  Op op;
  double bytes;
  std::string algo;
  std::vector<Straggler> stragglers;
  std::vector<LinkFault> faults;
  double time_s;   // recorded
  int64_t solves;  // recorded
};

std::vector<Pin> Pins() {
  using testing::Shipped;
  const Cluster a2 = Shipped("atlas800t-a2");
  // A blocking fabric: 8 NICs per leaf, 2:1 oversubscribed, so ECMP collisions shape the rates.
  const Cluster oversub = testing::SwitchCluster(8, 30, 2, 25, 10, 8, 2, 300);
  return {
      {"a2-16-allreduce-1G", a2, 16, Op::kAllReduce, 1073741824.0, "", {}, {}, 0x1.14c1a006e39aap-6, 12},
      {"a2-16384-allreduce-1G",
       a2,
       16384,
       Op::kAllReduce,
       1073741824.0,
       "",
       {},
       {},
       0x1.35a5f19566d3ep-4,
       1237},
      {"a2-4096-allreduce-1G",
       a2,
       4096,
       Op::kAllReduce,
       1073741824.0,
       "",
       {},
       {},
       0x1.08e7298af4f63p-4,
       1132},
      {"a2-1024-allgather-256M-straggler",
       a2,
       1024,
       Op::kAllGather,
       268435456.0,
       "",
       {{3, 1e-3}},
       {},
       0x1.3febedbc0d989p-7,
       580},
      {"a2-512-reducescatter-300M-fault",
       a2,
       512,
       Op::kReduceScatter,
       314572800.0,
       "",
       {},
       {{5, "scale-out", 0.5}},
       0x1.5b5b630e84f4dp-7,
       537},
      {"a2-64-alltoall-64M", a2, 64, Op::kAllToAll, 67108864.0, "", {}, {}, 0x1.7b0f9c516e2a1p-8, 79},
      {"a2-128-broadcast-100M-hd",
       a2,
       128,
       Op::kBroadcast,
       104857600.0,
       "level0:NA;level1:H-D_R",
       {},
       {},
       0x1.d239389765126p-6,
       6},
      {"a2-256-allreduce-64M-ring",
       a2,
       256,
       Op::kAllReduce,
       67108864.0,
       "level0:NA;level1:ring",
       {},
       {},
       0x1.65faaa70b2fb7p-8,
       326},
      {"a3-384-allreduce-512M",
       Shipped("atlas900-a3-superpod"),
       384,
       Op::kAllReduce,
       536870912.0,
       "",
       {},
       {},
       0x1.513d16a361d0ap-8,
       32},
      {"dgx-h100-64-allreduce-1G",
       Shipped("dgx-h100"),
       64,
       Op::kAllReduce,
       1073741824.0,
       "",
       {},
       {},
       0x1.2b046c4d7b124p-7,
       28},
      {"atlas800-910-32-allreduce-8M",
       Shipped("atlas800-910"),
       32,
       Op::kAllReduce,
       8388608.0,
       "",
       {},
       {},
       0x1.228585fbb197ep-9,
       8},
      {"oversub-256-allreduce-64M-ring",
       oversub,
       256,
       Op::kAllReduce,
       67108864.0,
       "level0:NA;level1:ring",
       {},
       {},
       0x1.1ca13379c3f23p-7,
       422},
      {"oversub-256-alltoall-16M",
       oversub,
       256,
       Op::kAllToAll,
       16777216.0,
       "",
       {},
       {},
       0x1.4c50777f7f21cp-8,
       1280},
  };
}

// Runs every pin whose rank count `pick` accepts against its recorded time and solve count.
void CheckPins(bool (*pick)(int ranks)) {
  const bool print = std::getenv("NPUGAP_PRINT_PINS") != nullptr;
  int checked = 0;
  for (const Pin& p : Pins()) {
    if (!pick(p.ranks)) continue;
    ++checked;
    CollectiveSpec spec;
    spec.op = p.op;
    spec.bytes = p.bytes;
    SimOptions o;
    o.kind = SimKind::kFlow;
    o.algo = *ParseHcclAlgo(p.algo);
    o.stragglers = p.stragglers;
    o.link_faults = p.faults;
    auto r = SimulateCollective(p.cluster, p.ranks, spec, o);
    ASSERT_TRUE(r.ok()) << p.name << ": " << r.status().message();
    if (print) std::printf("%s %a %lld\n", p.name, r->time_s, static_cast<long long>(r->solves));
    if (kBitExactBuild) {
      EXPECT_EQ(r->time_s, p.time_s) << p.name;
    } else {
      EXPECT_NEAR(r->time_s, p.time_s, 1e-12 * p.time_s) << p.name;
    }
    EXPECT_EQ(r->solves, p.solves) << p.name;
  }
  EXPECT_GT(checked, 0);
}

// The 16,384-NPU pin takes about a second (the three-tier fabric, 589,824 flows per round); it is
// its own test so that ctest runs it beside the rest instead of after them in one process.
constexpr int kLargePin = 16384;

TEST(CommFlowPins, SimulatedTimesAreBitIdenticalToTheRecordedOnes) {
  CheckPins([](int ranks) { return ranks < kLargePin; });
}

TEST(CommFlowPins, SixteenThousandRanksAreBitIdenticalToTheRecordedOnes) {
  CheckPins([](int ranks) { return ranks >= kLargePin; });
}

}  // namespace
}  // namespace npugap::comm
