// A cluster as data: the levels of its interconnect (inside a server, inside a supernode, the
// scale-out fabric), each with bandwidth and latency that carry their source and confidence, plus
// the HCCL defaults of its product family. Loaded from data/clusters/*.json (docs/clusters.md).
#pragma once

#include <string>
#include <vector>

#include "npugap/base/status.h"

namespace npugap::comm {

enum class Confidence { kOfficial, kThirdParty, kDerived, kAssumed };
const char* ConfidenceName(Confidence c);

// A number from the research notes (or an assumption) with where it came from.
struct Sourced {
  double value = 0;
  std::string source;
  Confidence confidence = Confidence::kAssumed;
};

// How the members of one group at a level reach each other.
enum class LevelKind {
  kFullMesh,  // a direct link per ordered pair (HCCS peer-to-peer); only as the innermost level
  kSwitch,    // one port per NPU into a non-blocking switch (NVSwitch, PCIe switch, UB); levels
              // naming the same `port` share it
  kFabric,    // leaf-spine scale-out network, one NIC per NPU; always the outermost level
};
const char* LevelKindName(LevelKind k);

struct Level {
  std::string name;  // "hccs", "server", "supernode", "scale-out"
  LevelKind kind = LevelKind::kSwitch;
  int group_size = 0;      // groups of the level below joined here; 0 for the fabric (unbounded)
  std::string port;        // switch: port name shared between levels
  Sourced bandwidth_gbps;  // GB/s per direction: per pair (full mesh), per NPU port (switch, fabric)
  Sourced latency_us;      // one transfer's fixed cost (α) over this level, software included
};

// Leaf-spine (two tiers) or leaf-spine-core (three tiers, when leaves exceed `leaves_per_pod`).
struct Fabric {
  int nics_per_leaf = 0;
  Sourced oversubscription;          // leaf down : up capacity
  int leaves_per_pod = 0;            // leaves under one set of spines
  Sourced core_oversubscription;     // spine down : up capacity (three tiers only)
  std::string placement = "server";  // "server": a server's NICs on one leaf; "rail": NIC i of
                                     // consecutive servers on one leaf
  Sourced hop_latency_us;            // added per switch hop on top of the level's α
};

struct HcclDefaults {
  Sourced buffsize_mb;                 // HCCL_BUFFSIZE
  Sourced connect_timeout_s;           // HCCL_CONNECT_TIMEOUT (effective wait adds 20 s)
  Sourced exec_timeout_s;              // HCCL_EXEC_TIMEOUT
  int exec_timeout_granularity_s = 0;  // 910: effective = floor(v/68)*68; 0 = exact
  Sourced rdma_timeout;                // HCCL_RDMA_TIMEOUT exponent t: 4.096 µs * 2^t
  Sourced rdma_retry_cnt;              // HCCL_RDMA_RETRY_CNT
  // Host-side cost of launching one collective (HCCL_OP_EXPANSION_MODE HOST expands the algorithm
  // into tasks on the host; NCCL: its base latency). Added once per collective as hccl_test
  // measures it; 0 with "not given" when the cluster file has none.
  Sourced dispatch_us;
};

struct Cluster {
  std::string name;
  std::string description;
  std::string family;  // "910", "A2", "A3", "nvidia": drives the default algorithms
  int npus_per_server = 0;
  std::vector<int> small_rank_counts;  // allowed rank counts below one server (empty: any)
  Sourced max_npus;
  std::vector<Level> levels;  // innermost first; the last is the fabric
  Fabric fabric;
  Sourced reduce_gbps;  // γ: reduction throughput per NPU
  // NCCL fuses the reduction into the copy kernel (its cost model has no γ term); HCCL's formulas
  // add γ after each receive. When true, reduction costs nothing extra.
  bool reduction_overlapped = false;
  HcclDefaults hccl;
  std::string file;  // where it was loaded from
};

// Parses one cluster JSON document; `origin` names it in errors.
Expected<Cluster> ParseCluster(const std::string& json_text, const std::string& origin);

// `name_or_path`: a file path (contains '/' or ends in .json) or a cluster name looked up in
// `clusters_dir` (its file name or any of its "aliases"). Unknown names list the valid ones.
Expected<Cluster> LoadCluster(const std::string& name_or_path, const std::string& clusters_dir);

// Names (file stems) of the clusters in `clusters_dir`, sorted.
std::vector<std::string> ListClusters(const std::string& clusters_dir);

// $NPUGAP_CLUSTERS, else the first data/clusters found walking up from the executable's folder.
std::string FindClustersDir();

// How N ranks map onto the levels: per level the number of members per group actually used
// (innermost first). Fails with a one-line reason when N does not fit the cluster.
struct Layout {
  int ranks = 0;
  std::vector<int> sizes;   // sizes[l] = members per group at level l; product == ranks
  std::vector<int> stride;  // stride[l] = product of sizes below l
  int Coord(int rank, size_t level) const { return rank / stride[level] % sizes[level]; }
  // The outermost level at which two ranks differ (the level their traffic crosses).
  size_t CrossLevel(int a, int b) const;
};
Expected<Layout> MakeLayout(const Cluster& cluster, int ranks);

}  // namespace npugap::comm
