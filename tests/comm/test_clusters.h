// Small hand-built clusters for the comm tests: every number is chosen by the test, so expected
// times can be computed independently from the formulas.
#pragma once

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "npugap/comm/cluster.h"

namespace npugap::comm::testing {

inline std::string Num(double v) {
  return fmt::format(R"({{"value": {}, "source": "test", "confidence": "assumed"}})", v);
}

inline std::string Hccl() {
  return fmt::format(
      R"({{"buffsize_mb": {}, "connect_timeout_s": {}, "exec_timeout_s": {}, "rdma_timeout": {},
                         "rdma_retry_cnt": {}}})",
      Num(200), Num(120), Num(1836), Num(20), Num(7));
}

// One switch level of `server` NPUs (bandwidth sw GB/s, α sw_us), then a fabric (nic GB/s, α nic_us).
inline Cluster SwitchCluster(int server, double sw, double sw_us, double nic, double nic_us,
                             int nics_per_leaf = 64, double oversub = 1, double gamma = 1e9,
                             const std::string& kind = "switch") {
  const std::string json = fmt::format(
      R"({{"name": "test", "family": "A2", "npus_per_server": {}, "max_npus": {}, "reduce_gbps": {},
          "levels": [{{"name": "intra", "kind": "{}", "group_size": {}, "bandwidth_gbps": {}, "latency_us": {}}},
                     {{"name": "scale-out", "kind": "fabric", "bandwidth_gbps": {}, "latency_us": {}}}],
          "fabric": {{"nics_per_leaf": {}, "oversubscription": {}, "leaves_per_pod": 1000,
                     "core_oversubscription": {}, "hop_latency_us": {}}},
          "hccl": {}}})",
      server, Num(65536), Num(gamma), kind, server, Num(sw), Num(sw_us), Num(nic), Num(nic_us), nics_per_leaf,
      Num(oversub), Num(1), Num(0), Hccl());
  auto c = ParseCluster(json, "test.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

// Only a fabric: one NPU per server.
inline Cluster FabricCluster(double nic, double nic_us, int nics_per_leaf, double oversub,
                             double gamma = 1e9) {
  const std::string json = fmt::format(
      R"({{"name": "fabric", "family": "A2", "npus_per_server": 1, "max_npus": {}, "reduce_gbps": {},
          "levels": [{{"name": "scale-out", "kind": "fabric", "bandwidth_gbps": {}, "latency_us": {}}}],
          "fabric": {{"nics_per_leaf": {}, "oversubscription": {}, "leaves_per_pod": 1000,
                     "core_oversubscription": {}, "hop_latency_us": {}}},
          "hccl": {}}})",
      Num(65536), Num(gamma), Num(nic), Num(nic_us), nics_per_leaf, Num(oversub), Num(1), Num(0), Hccl());
  auto c = ParseCluster(json, "fabric.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

inline Cluster Shipped(const std::string& name) {
  auto c = LoadCluster(name, FindClustersDir());
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

}  // namespace npugap::comm::testing
