// Link graph construction and routing. Full mesh: one link per ordered pair of a group. Switch:
// an up and a down link per NPU and port name (the switch itself is non-blocking). Fabric: NIC
// up/down, leaf↔spine links (nics_per_leaf / oversubscription per leaf), and spine↔core links
// when the leaves exceed one pod. Every up link is followed by its down link (ids 2i, 2i + 1).
#include "npugap/comm/network.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace npugap::comm {

namespace {
// h mod m. Uplink counts are mostly powers of two, where the mask gives the same value without a
// 64-bit division (two per routed flow, 1.2M flows in a 16,384-rank all-reduce).
uint64_t Mod(uint64_t h, int m) {
  const uint64_t u = static_cast<uint64_t>(m);
  return (u & (u - 1)) == 0 ? h & (u - 1) : h % u;
}
}  // namespace

uint64_t FlowHash(uint64_t seed, int src, int dst, int qp) {
  // splitmix64 over (seed, src, dst, qp): the flow's 5-tuple stand-in. QP 0 hashes as before QPs
  // were modelled, so a one-QP run routes every flow as it did.
  uint64_t z = seed ^ (static_cast<uint64_t>(static_cast<uint32_t>(src)) << 32 | static_cast<uint32_t>(dst));
  if (qp != 0) z ^= static_cast<uint64_t>(qp) * 0xd6e8feb86659fd93ULL;
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Expected<Network> Network::Build(const Cluster& c, const Layout& L, uint64_t seed,
                                 const std::vector<LinkFault>& faults) {
  Network net;
  net.cluster_ = &c;
  net.layout_ = L;
  net.seed_ = seed;
  const int n = L.ranks;
  std::map<std::string, int32_t> port_base;
  for (size_t l = 0; l < L.sizes.size(); ++l) {
    const Level& level = c.levels[l];
    const double cap = level.bandwidth_gbps.value * 1e9;
    const int32_t base = static_cast<int32_t>(net.links_.size());
    if (level.kind == LevelKind::kFullMesh) {
      const int p = L.sizes[l];
      net.links_.resize(net.links_.size() + static_cast<size_t>(n) * p, Link{cap});  // [rank][peer local]
    } else if (level.kind == LevelKind::kSwitch) {
      if (auto it = port_base.find(level.port); it != port_base.end()) {
        net.level_base_.push_back(it->second);
        continue;
      }
      port_base[level.port] = base;
      net.links_.resize(net.links_.size() + 2 * static_cast<size_t>(n), Link{cap});  // [rank][up, down]
    } else {
      const Fabric& f = c.fabric;
      net.leaves_ = (n + f.nics_per_leaf - 1) / f.nics_per_leaf;
      if (f.placement == "rail") {
        const int server = std::max(1, std::min(c.npus_per_server, n));
        net.leaves_ = server * ((n / server + f.nics_per_leaf - 1) / f.nics_per_leaf);
      }
      net.up_ = std::max(1, static_cast<int>(std::lround(f.nics_per_leaf / f.oversubscription.value)));
      net.leaves_per_pod_ = f.leaves_per_pod;
      net.pods_ = (net.leaves_ + f.leaves_per_pod - 1) / f.leaves_per_pod;
      net.core_up_ =
          net.pods_ > 1
              ? std::max(1, static_cast<int>(std::lround(f.leaves_per_pod / f.core_oversubscription.value)))
              : 0;
      net.nic_ = base;                                     // [rank][up, down]
      net.leaf_ = base + 2 * n;                            // [leaf][uplink][up, down]
      net.spine_ = net.leaf_ + 2 * net.leaves_ * net.up_;  // [pod][spine][core uplink][up, down]
      const size_t total = static_cast<size_t>(net.spine_ + 2 * net.pods_ * net.up_ * net.core_up_);
      net.links_.resize(total, Link{cap});
    }
    net.level_base_.push_back(base);
  }
  net.group_.resize(L.sizes.size() * static_cast<size_t>(n));
  for (size_t l = 0; l < L.sizes.size(); ++l)
    for (int r = 0; r < n; ++r)
      net.group_[l * static_cast<size_t>(n) + static_cast<size_t>(r)] = r / L.stride[l];
  if (net.leaves_ > 0) {
    net.rank_leaf_.resize(static_cast<size_t>(n));
    net.rank_pod_.resize(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      net.rank_leaf_[static_cast<size_t>(r)] = net.LeafOf(r);
      net.rank_pod_[static_cast<size_t>(r)] = net.rank_leaf_[static_cast<size_t>(r)] / net.leaves_per_pod_;
    }
  }
  for (const LinkFault& fault : faults) {
    if (fault.rank < 0 || fault.rank >= n)
      return Status::InvalidArgument(fmt::format("link fault: rank {} is outside 0..{}", fault.rank, n - 1));
    size_t l = 0;
    while (l < L.sizes.size() && c.levels[l].name != fault.level) ++l;
    if (l == L.sizes.size()) {
      std::string valid;
      for (size_t k = 0; k < L.sizes.size(); ++k) valid += (k ? ", " : "") + c.levels[k].name;
      return Status::InvalidArgument(
          fmt::format("link fault: level '{}' is not used by {} ranks (valid: {})", fault.level, n, valid));
    }
    if (fault.factor < 0 || fault.factor > 1)
      return Status::InvalidArgument(fmt::format("link fault: factor {} must be in [0, 1]", fault.factor));
    net.failed_ = net.failed_ || fault.factor == 0;
    // A failed link keeps a sliver of capacity so the simulators stay finite; the timeout analysis
    // reports the failure itself.
    const double f = std::max(fault.factor, 1e-9);
    const int32_t base = net.level_base_[l];
    if (c.levels[l].kind == LevelKind::kFullMesh) {
      const int p = L.sizes[l];
      for (int j = 0; j < p; ++j) net.links_[static_cast<size_t>(base + fault.rank * p + j)].capacity *= f;
    } else {
      net.links_[static_cast<size_t>(base + 2 * fault.rank)].capacity *= f;
      net.links_[static_cast<size_t>(base + 2 * fault.rank + 1)].capacity *= f;
    }
  }
  return net;
}

int Network::LeafOf(int rank) const {
  const int per = cluster_->fabric.nics_per_leaf;
  if (cluster_->fabric.placement == "rail") {
    const int server = std::max(1, std::min(cluster_->npus_per_server, layout_.ranks));
    const int local = rank % server, srv = rank / server;
    const int servers_per_leaf = std::max(1, per);
    const int groups = (layout_.ranks / server + servers_per_leaf - 1) / servers_per_leaf;
    return local * groups + srv / servers_per_leaf;
  }
  return rank / per;
}

int Network::SpineOf(int src, int dst) const { return static_cast<int>(Mod(FlowHash(seed_, src, dst), up_)); }

Path Network::Route(int src, int dst, int qp) const {
  Path path;
  const size_t n_ranks = static_cast<size_t>(layout_.ranks);
  size_t l = layout_.sizes.size() - 1;  // the outermost level whose groups differ (Layout::CrossLevel)
  while (l > 0 &&
         group_[l * n_ranks + static_cast<size_t>(src)] == group_[l * n_ranks + static_cast<size_t>(dst)])
    --l;
  const Level& level = cluster_->levels[l];
  const int32_t base = level_base_[l];
  path.latency_s = level.latency_us.value * 1e-6;
  if (level.kind == LevelKind::kFullMesh) {
    path.links[0] = base + src * layout_.sizes[l] + layout_.Coord(dst, l);
    path.count = 1;
  } else if (level.kind == LevelKind::kSwitch) {
    path.links[0] = base + 2 * src;
    path.links[1] = base + 2 * dst + 1;
    path.count = 2;
  } else {
    const int ls = rank_leaf_[static_cast<size_t>(src)], ld = rank_leaf_[static_cast<size_t>(dst)];
    const double hop = cluster_->fabric.hop_latency_us.value * 1e-6;
    path.links[path.count++] = nic_ + 2 * src;
    if (ls != ld) {
      const uint64_t h = FlowHash(seed_, src, dst, qp);
      const int u = static_cast<int>(Mod(h, up_));
      path.links[path.count++] = leaf_ + 2 * (ls * up_ + u);
      const int ps = rank_pod_[static_cast<size_t>(src)], pd = rank_pod_[static_cast<size_t>(dst)];
      if (ps != pd) {
        const int k = static_cast<int>(Mod(h >> 32, core_up_));
        path.links[path.count++] = spine_ + 2 * ((ps * up_ + u) * core_up_ + k);
        path.links[path.count++] = spine_ + 2 * ((pd * up_ + u) * core_up_ + k) + 1;
      }
      path.links[path.count++] = leaf_ + 2 * (ld * up_ + u) + 1;
    }
    path.links[path.count++] = nic_ + 2 * dst + 1;
    path.latency_s += hop * (path.count - 1);
  }
  return path;
}

}  // namespace npugap::comm
