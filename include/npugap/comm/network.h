// The cluster as a graph of directed links (capacity in bytes/s, latency) for N ranks, and the path
// of a transfer: the links of the outermost level its two ranks differ at. In the leaf-spine
// fabric the spine (and core) is chosen by a seeded hash of the flow, as ECMP does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/comm/cluster.h"

namespace npugap::comm {

struct Link {
  double capacity = 0;  // bytes/s
};

struct Path {
  std::array<int32_t, 6> links{};
  int32_t count = 0;
  double latency_s = 0;  // the level's α plus switch hops
};

// A fault on one rank's links at one level (factor 1: healthy, 0: failed).
struct LinkFault {
  int rank = 0;
  std::string level;  // a level name from the cluster, e.g. "scale-out"
  double factor = 0;
};

class Network {
 public:
  static Expected<Network> Build(const Cluster& cluster, const Layout& layout, uint64_t ecmp_seed,
                                 const std::vector<LinkFault>& faults);

  // `qp`: the queue pair of the rank pair; each has its own source port, so its own ECMP hash.
  Path Route(int src, int dst, int qp = 0) const;
  const std::vector<Link>& links() const { return links_; }
  int leaves() const { return leaves_; }
  int LeafOf(int rank) const;
  int uplinks_per_leaf() const { return up_; }
  // The spine a flow from src to dst hashes to (cross-leaf flows only).
  int SpineOf(int src, int dst) const;
  bool has_failed_link() const { return failed_; }

 private:
  const Cluster* cluster_ = nullptr;
  Layout layout_;
  uint64_t seed_ = 0;
  std::vector<Link> links_;
  std::vector<int32_t> level_base_;  // first link id of each level (switch: shared by port name)
  // Per rank, precomputed so that routing a flow takes no integer division besides its hash:
  // group_[l * ranks + r] = r / stride[l] (two ranks first differ at the outermost level where
  // these differ), its leaf, and the pod of that leaf.
  std::vector<int32_t> group_, rank_leaf_, rank_pod_;
  // fabric
  int leaves_ = 0, up_ = 0, pods_ = 1, core_up_ = 0, leaves_per_pod_ = 1;
  // Up and down links of one NIC, leaf uplink or spine uplink are adjacent (ids 2i and 2i + 1):
  // the flows a rank starts together send on its up link and receive on its down link, so both
  // records share a cache line.
  int32_t nic_ = 0, leaf_ = 0, spine_ = 0;
  bool failed_ = false;
};

uint64_t FlowHash(uint64_t seed, int src, int dst, int qp = 0);

}  // namespace npugap::comm
