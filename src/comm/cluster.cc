// Cluster JSON parsing and validation. Every number must carry a source and a confidence, so a
// cluster file cannot smuggle in an unexplained constant.
#include "npugap/comm/cluster.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace npugap::comm {
namespace {

using nlohmann::json;

Expected<Confidence> ParseConfidence(const std::string& s, const std::string& where) {
  if (s == "official") return Confidence::kOfficial;
  if (s == "third-party") return Confidence::kThirdParty;
  if (s == "derived") return Confidence::kDerived;
  if (s == "assumed") return Confidence::kAssumed;
  return Status::InvalidArgument(
      fmt::format("{}.confidence: '{}' is not one of official, third-party, derived, assumed", where, s));
}

Expected<Sourced> ParseSourced(const json& parent, const std::string& key, const std::string& where) {
  const std::string at = where + "." + key;
  if (!parent.contains(key)) return Status::InvalidArgument(at + ": missing");
  const json& j = parent.at(key);
  if (!j.is_object() || !j.contains("value") || !j.at("value").is_number())
    return Status::InvalidArgument(at +
                                   ": expected {\"value\": number, \"source\": ..., \"confidence\": ...}");
  if (!j.contains("source") || !j.at("source").is_string() || j.at("source").get<std::string>().empty())
    return Status::InvalidArgument(at + ": missing 'source'");
  if (!j.contains("confidence") || !j.at("confidence").is_string())
    return Status::InvalidArgument(at + ": missing 'confidence'");
  NPUGAP_ASSIGN_OR_RETURN(Confidence c, ParseConfidence(j.at("confidence").get<std::string>(), at));
  Sourced s{j.at("value").get<double>(), j.at("source").get<std::string>(), c};
  if (!(s.value >= 0)) return Status::InvalidArgument(fmt::format("{}: value {} must be >= 0", at, s.value));
  return s;
}

Expected<int> ParseInt(const json& parent, const std::string& key, const std::string& where, int min) {
  if (!parent.contains(key) || !parent.at(key).is_number_integer())
    return Status::InvalidArgument(fmt::format("{}.{}: missing or not an integer", where, key));
  const int v = parent.at(key).get<int>();
  if (v < min) return Status::InvalidArgument(fmt::format("{}.{}: {} must be >= {}", where, key, v, min));
  return v;
}

Expected<Level> ParseLevel(const json& j, const std::string& where) {
  Level level;
  level.name = j.value("name", "");
  const std::string kind = j.value("kind", "");
  if (kind == "fullmesh")
    level.kind = LevelKind::kFullMesh;
  else if (kind == "switch")
    level.kind = LevelKind::kSwitch;
  else if (kind == "fabric")
    level.kind = LevelKind::kFabric;
  else
    return Status::InvalidArgument(where + ".kind: '" + kind + "' is not one of fullmesh, switch, fabric");
  if (level.kind != LevelKind::kFabric) {
    NPUGAP_ASSIGN_OR_RETURN(level.group_size, ParseInt(j, "group_size", where, 1));
  }
  level.port = j.value("port", level.name);
  NPUGAP_ASSIGN_OR_RETURN(level.bandwidth_gbps, ParseSourced(j, "bandwidth_gbps", where));
  NPUGAP_ASSIGN_OR_RETURN(level.latency_us, ParseSourced(j, "latency_us", where));
  if (level.bandwidth_gbps.value <= 0) return Status::InvalidArgument(where + ".bandwidth_gbps: must be > 0");
  return level;
}

Expected<Fabric> ParseFabric(const json& j, const std::string& where) {
  Fabric f;
  NPUGAP_ASSIGN_OR_RETURN(f.nics_per_leaf, ParseInt(j, "nics_per_leaf", where, 1));
  NPUGAP_ASSIGN_OR_RETURN(f.oversubscription, ParseSourced(j, "oversubscription", where));
  NPUGAP_ASSIGN_OR_RETURN(f.leaves_per_pod, ParseInt(j, "leaves_per_pod", where, 1));
  NPUGAP_ASSIGN_OR_RETURN(f.core_oversubscription, ParseSourced(j, "core_oversubscription", where));
  NPUGAP_ASSIGN_OR_RETURN(f.hop_latency_us, ParseSourced(j, "hop_latency_us", where));
  f.placement = j.value("placement", "server");
  if (f.placement != "server" && f.placement != "rail")
    return Status::InvalidArgument(where + ".placement: '" + f.placement + "' is not one of server, rail");
  if (f.oversubscription.value < 1 || f.core_oversubscription.value < 1)
    return Status::InvalidArgument(where + ": oversubscription ratios must be >= 1");
  return f;
}

Expected<Cluster> ParseClusterJson(const json& j, const std::string& origin) {
  Cluster c;
  c.file = origin;
  c.name = j.value("name", "");
  if (c.name.empty()) return Status::InvalidArgument("name: missing");
  c.description = j.value("description", "");
  c.family = j.value("family", "");
  if (c.family != "910" && c.family != "A2" && c.family != "A3" && c.family != "nvidia")
    return Status::InvalidArgument("family: '" + c.family + "' is not one of 910, A2, A3, nvidia");
  NPUGAP_ASSIGN_OR_RETURN(c.npus_per_server, ParseInt(j, "npus_per_server", "cluster", 1));
  if (j.contains("small_rank_counts"))
    c.small_rank_counts = j.at("small_rank_counts").get<std::vector<int>>();
  NPUGAP_ASSIGN_OR_RETURN(c.max_npus, ParseSourced(j, "max_npus", "cluster"));
  NPUGAP_ASSIGN_OR_RETURN(c.reduce_gbps, ParseSourced(j, "reduce_gbps", "cluster"));
  if (c.reduce_gbps.value <= 0) return Status::InvalidArgument("reduce_gbps: must be > 0");
  c.reduction_overlapped = j.value("reduction_overlapped", false);
  if (!j.contains("levels") || !j.at("levels").is_array() || j.at("levels").empty())
    return Status::InvalidArgument("levels: missing or empty");
  for (size_t i = 0; i < j.at("levels").size(); ++i) {
    NPUGAP_ASSIGN_OR_RETURN(Level level, ParseLevel(j.at("levels")[i], fmt::format("levels[{}]", i)));
    c.levels.push_back(std::move(level));
  }
  for (size_t i = 0; i < c.levels.size(); ++i) {
    const bool last = i + 1 == c.levels.size();
    if ((c.levels[i].kind == LevelKind::kFabric) != last)
      return Status::InvalidArgument(
          fmt::format("levels[{}]: the fabric must be the last level, and only it", i));
    if (c.levels[i].kind == LevelKind::kFullMesh && i != 0)
      return Status::InvalidArgument(fmt::format("levels[{}]: a fullmesh level must be the innermost", i));
  }
  int server = 1;
  for (size_t i = 0; i + 1 < c.levels.size() && server < c.npus_per_server; ++i)
    server *= c.levels[i].group_size;
  if (server != c.npus_per_server)
    return Status::InvalidArgument(fmt::format(
        "levels: inner group sizes multiply to {}, not npus_per_server {}", server, c.npus_per_server));
  if (!j.contains("fabric")) return Status::InvalidArgument("fabric: missing");
  NPUGAP_ASSIGN_OR_RETURN(c.fabric, ParseFabric(j.at("fabric"), "fabric"));
  if (!j.contains("hccl")) return Status::InvalidArgument("hccl: missing");
  const json& h = j.at("hccl");
  NPUGAP_ASSIGN_OR_RETURN(c.hccl.buffsize_mb, ParseSourced(h, "buffsize_mb", "hccl"));
  NPUGAP_ASSIGN_OR_RETURN(c.hccl.connect_timeout_s, ParseSourced(h, "connect_timeout_s", "hccl"));
  NPUGAP_ASSIGN_OR_RETURN(c.hccl.exec_timeout_s, ParseSourced(h, "exec_timeout_s", "hccl"));
  c.hccl.exec_timeout_granularity_s = h.value("exec_timeout_granularity_s", 0);
  NPUGAP_ASSIGN_OR_RETURN(c.hccl.rdma_timeout, ParseSourced(h, "rdma_timeout", "hccl"));
  NPUGAP_ASSIGN_OR_RETURN(c.hccl.rdma_retry_cnt, ParseSourced(h, "rdma_retry_cnt", "hccl"));
  if (h.contains("dispatch_us")) {
    NPUGAP_ASSIGN_OR_RETURN(c.hccl.dispatch_us, ParseSourced(h, "dispatch_us", "hccl"));
  } else {
    c.hccl.dispatch_us = {0, "not given in the cluster file", Confidence::kAssumed};
  }
  return c;
}

Expected<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot open cluster file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

const char* ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kOfficial:
      return "official";
    case Confidence::kThirdParty:
      return "third-party";
    case Confidence::kDerived:
      return "derived";
    case Confidence::kAssumed:
      return "assumed";
  }
  return "?";
}

const char* LevelKindName(LevelKind k) {
  switch (k) {
    case LevelKind::kFullMesh:
      return "fullmesh";
    case LevelKind::kSwitch:
      return "switch";
    case LevelKind::kFabric:
      return "fabric";
  }
  return "?";
}

Expected<Cluster> ParseCluster(const std::string& json_text, const std::string& origin) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument(origin + ": not a JSON object");
  try {
    auto c = ParseClusterJson(j, origin);
    if (!c.ok()) return c.status().WithContext(origin);
    return c;
  } catch (const json::exception& e) {
    return Status::InvalidArgument(origin + ": " + e.what());
  }
}

std::vector<std::string> ListClusters(const std::string& clusters_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(clusters_dir, ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<Cluster> LoadCluster(const std::string& name_or_path, const std::string& clusters_dir) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  if (is_path) {
    NPUGAP_ASSIGN_OR_RETURN(std::string text, ReadText(name_or_path));
    return ParseCluster(text, name_or_path);
  }
  const std::vector<std::string> names = ListClusters(clusters_dir);
  for (const std::string& n : names) {
    const std::string path = clusters_dir + "/" + n + ".json";
    NPUGAP_ASSIGN_OR_RETURN(std::string text, ReadText(path));
    json j = json::parse(text, nullptr, false);
    bool match = n == name_or_path;
    if (!j.is_discarded() && j.contains("aliases") && j.at("aliases").is_array()) {
      for (const auto& a : j.at("aliases"))
        match = match || (a.is_string() && a.get<std::string>() == name_or_path);
    }
    if (match) return ParseCluster(text, path);
  }
  std::string valid;
  for (const std::string& n : names) valid += (valid.empty() ? "" : ", ") + n;
  return Status::NotFound(fmt::format("unknown cluster '{}' (valid: {}{})", name_or_path,
                                      valid.empty() ? "none found in " + clusters_dir : valid,
                                      valid.empty() ? "" : ", or a .json file"));
}

std::string FindClustersDir() {
  if (const char* env = std::getenv("NPUGAP_CLUSTERS"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  for (int i = 0; i < 6 && !dir.empty(); ++i) {
    if (std::filesystem::is_directory(dir / "data" / "clusters", ec))
      return (dir / "data" / "clusters").string();
    if (std::filesystem::is_directory(dir / "share" / "npugap" / "clusters", ec))
      return (dir / "share" / "npugap" / "clusters").string();
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return "data/clusters";
}

size_t Layout::CrossLevel(int a, int b) const {
  for (size_t l = sizes.size(); l-- > 0;) {
    if (Coord(a, l) != Coord(b, l)) return l;
  }
  return 0;
}

Expected<Layout> MakeLayout(const Cluster& cluster, int ranks) {
  if (ranks < 1) return Status::InvalidArgument(fmt::format("--ranks {}: must be >= 1", ranks));
  if (ranks > cluster.max_npus.value)
    return Status::InvalidArgument(fmt::format("--ranks {}: {} holds at most {} NPUs ({})", ranks,
                                               cluster.name, cluster.max_npus.value,
                                               cluster.max_npus.source));
  if (ranks < cluster.npus_per_server && !cluster.small_rank_counts.empty() &&
      std::find(cluster.small_rank_counts.begin(), cluster.small_rank_counts.end(), ranks) ==
          cluster.small_rank_counts.end()) {
    std::string allowed;
    for (int n : cluster.small_rank_counts) allowed += (allowed.empty() ? "" : ", ") + std::to_string(n);
    return Status::InvalidArgument(
        fmt::format("--ranks {}: inside one {} server HCCL allows {} NPUs", ranks, cluster.name, allowed));
  }
  Layout layout;
  layout.ranks = ranks;
  int covered = 1;
  for (size_t l = 0; l < cluster.levels.size() && covered < ranks; ++l) {
    if (ranks % covered != 0)
      return Status::InvalidArgument(
          fmt::format("--ranks {}: does not fit {}: more than {} NPUs must be a multiple of {}", ranks,
                      cluster.name, covered, covered));
    const int rest = ranks / covered;
    const Level& level = cluster.levels[l];
    const int size = level.kind == LevelKind::kFabric ? rest : std::min(level.group_size, rest);
    layout.stride.push_back(covered);
    layout.sizes.push_back(size);
    covered *= size;
  }
  if (layout.sizes.empty()) {
    layout.sizes.push_back(1);
    layout.stride.push_back(1);
  }
  return layout;
}

}  // namespace npugap::comm
