// `npugap comm`: collective timing tables (nccl-tests / hccl_test style) for a named cluster, the
// timeout report, and `npugap comm dp` for the data-parallel step model.
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "npugap/analysis/perf/iteration.h"
#include "npugap/analysis/perf/lower/lower.h"
#include "npugap/comm/data_parallel.h"
#include "npugap/comm/faults.h"
#include "npugap/comm/moe.h"
#include "npugap/comm/simulate.h"

namespace npugap::cli {
namespace {

using comm::Cluster;

struct SimFlags {
  std::string cluster;
  int ranks = 0;
  std::string algo;
  std::string sim = "analytical";
  std::string buffsize;
  std::vector<std::string> stragglers;  // RANK:MS
  std::string random_stragglers;        // COUNT:MAXMS[:SEED]
  std::vector<std::string> faults;      // RANK:LEVEL:FACTOR
  uint64_t seed = 1;
  int nics_per_leaf = 0;        // 0: the cluster's
  double oversubscription = 0;  // 0: the cluster's
  bool no_dispatch = false;     // leave out the host dispatch cost per collective
  int qps = 1;                  // HCCL_RDMA_QPS_PER_CONNECTION
  std::string qp_threshold;     // HCCL_MULTI_QP_THRESHOLD; empty: 512K
  bool json = false;
};

struct CommFlags {
  SimFlags sim;
  std::string op = "allreduce";
  std::string bytes = "8M:1G:x2";
  int root = 0;
  int peer = 1;
  comm::TimeoutSettings timeouts;
  comm::MoeSpec moe;  // --op moe-dispatch / moe-combine
  std::string moe_dtype = "int8";
  bool moe_no_dedup = false;
  // The first flag given that the --op does not use (a MoE flag with a collective, or a
  // collective's flag with a MoE op); empty when none: such a flag is an error, not ignored.
  std::string moe_only_given, collective_only_given;
};

struct DpFlags {
  SimFlags sim;
  std::string grad_bytes;
  ModelOptions model;
  double backward_ms = -1;  // -1: not given (from the perf model with --model)
  double forward_ms = -1;   // -1: not given (0, or from the perf model with --model)
  std::string bucket = "25M";
  TargetOptions target;  // the NPU the perf model times the backward on
};

// Forward and backward device time of one training step of `model` on the target, from the perf
// model (graph mode, mixed precision as the target's framework default), for `comm dp --model`.
Expected<analysis::perf::PhaseTimes> PerfPhaseTimes(const ir::Model& model, const TargetOptions& t) {
  namespace perf = analysis::perf;
  NPUGAP_ASSIGN_OR_RETURN(const target::Target target, LoadTargetWithOptions(t));
  perf::LowerOptions lo;
  lo.train = true;
  NPUGAP_ASSIGN_OR_RETURN(const perf::Lowering lowering, perf::Lower(model, target, lo));
  NPUGAP_ASSIGN_OR_RETURN(const perf::IterationResult r,
                          perf::SimulateIteration(lowering, target, {}, &perf::PredictKernel));
  return perf::DeviceTimeByPhase(r);
}

// "8M", "1G", "4096", "1.5K": binary units as nccl-tests and HCCL_BUFFSIZE use them.
Expected<double> ParseSize(const std::string& text, const std::string& flag) {
  const std::string bad = fmt::format("{} '{}': ", flag, text);
  if (text.empty()) return Status::InvalidArgument(bad + "empty size");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  std::string unit(end);
  if (end == text.c_str()) return Status::InvalidArgument(bad + "cannot parse a size (e.g. 8M, 1G, 4096)");
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  double scale = 1;
  if (unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "M" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!unit.empty())
    return Status::InvalidArgument(bad + "unknown unit '" + unit + "' (K, M, G, T)");
  if (!(v > 0) || !std::isfinite(v)) return Status::InvalidArgument(bad + "size must be > 0");
  return v * scale;
}

// "8M:4G[:x2]" or one size.
Expected<std::vector<double>> ParseSizeRange(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t pos; (pos = text.find(':', start)) != std::string::npos; start = pos + 1)
    parts.push_back(text.substr(start, pos - start));
  parts.push_back(text.substr(start));
  if (parts.size() > 3)
    return Status::InvalidArgument("--bytes '" + text + "': expected MIN[:MAX[:xFACTOR]]");
  NPUGAP_ASSIGN_OR_RETURN(double lo, ParseSize(parts[0], "--bytes"));
  double hi = lo, factor = 2;
  if (parts.size() >= 2) {
    NPUGAP_ASSIGN_OR_RETURN(hi, ParseSize(parts[1], "--bytes"));
  }
  if (parts.size() == 3) {
    const std::string& f = parts[2];
    char* end = nullptr;
    factor = f.size() > 1 && f[0] == 'x' ? std::strtod(f.c_str() + 1, &end) : 0;
    if (!end || *end != '\0' || !(factor > 1))
      return Status::InvalidArgument("--bytes '" + text + "': factor '" + f + "' must be xN with N > 1");
  }
  if (hi < lo) return Status::InvalidArgument(fmt::format("--bytes '{}': max is below min", text));
  std::vector<double> sizes;
  for (double s = lo; s <= hi * (1 + 1e-12) && sizes.size() < 64; s *= factor) sizes.push_back(s);
  return sizes;
}

Expected<comm::SimOptions> BuildSimOptions(const SimFlags& f, const Cluster& cluster, int ranks) {
  comm::SimOptions o;
  NPUGAP_ASSIGN_OR_RETURN(o.kind, comm::ParseSimKind(f.sim));
  std::string algo = f.algo;
  if (algo.empty())
    if (const char* env = std::getenv("HCCL_ALGO")) algo = env;
  NPUGAP_ASSIGN_OR_RETURN(o.algo, comm::ParseHcclAlgo(algo));
  if (!f.buffsize.empty()) {
    NPUGAP_ASSIGN_OR_RETURN(o.buffsize_bytes, ParseSize(f.buffsize, "--buffsize"));
  }
  o.ecmp_seed = f.seed;
  o.host_dispatch = !f.no_dispatch;
  o.qps_per_connection = f.qps;
  if (!f.qp_threshold.empty()) {
    NPUGAP_ASSIGN_OR_RETURN(o.multi_qp_threshold_bytes, ParseSize(f.qp_threshold, "--qp-threshold"));
  }
  for (const std::string& s : f.stragglers) {
    const size_t colon = s.find(':');
    char* e1 = nullptr;
    char* e2 = nullptr;
    const long rank = colon == std::string::npos ? -1 : std::strtol(s.c_str(), &e1, 10);
    const double ms = colon == std::string::npos ? -1 : std::strtod(s.c_str() + colon + 1, &e2);
    if (colon == std::string::npos || e1 != s.c_str() + colon || *e2 != '\0' || rank < 0 || !(ms >= 0))
      return Status::InvalidArgument("--straggler '" + s + "': expected RANK:MS with RANK >= 0 and MS >= 0");
    o.stragglers.push_back({static_cast<int>(rank), ms * 1e-3});
  }
  if (!f.random_stragglers.empty()) {
    int count = 0;
    double max_ms = 0;
    unsigned long long seed = 1;
    const int got = std::sscanf(f.random_stragglers.c_str(), "%d:%lf:%llu", &count, &max_ms, &seed);
    if (got < 2 || count < 1 || !(max_ms >= 0))
      return Status::InvalidArgument("--random-stragglers '" + f.random_stragglers +
                                     "': expected COUNT:MAXMS[:SEED]");
    for (const auto& s : comm::RandomStragglers(ranks, count, max_ms * 1e-3, seed)) o.stragglers.push_back(s);
  }
  for (const std::string& s : f.faults) {
    const size_t a = s.find(':'), b = s.rfind(':');
    char* e1 = nullptr;
    char* e2 = nullptr;
    const long rank = a == std::string::npos ? -1 : std::strtol(s.c_str(), &e1, 10);
    const double factor = b == a ? -1 : std::strtod(s.c_str() + b + 1, &e2);
    if (a == std::string::npos || b == a || e1 != s.c_str() + a || *e2 != '\0' || rank < 0)
      return Status::InvalidArgument("--link-fault '" + s +
                                     "': expected RANK:LEVEL:FACTOR (FACTOR 0 = failed)");
    o.link_faults.push_back({static_cast<int>(rank), s.substr(a + 1, b - a - 1), factor});
  }
  (void)cluster;
  return o;
}

void AddSimFlags(CLI::App& cmd, SimFlags& f) {
  cmd.add_option("--cluster", f.cluster, "cluster name (see data/clusters) or a cluster .json file");
  cmd.add_option("--ranks", f.ranks, "number of NPUs");
  cmd.add_option("--algo", f.algo, "HCCL_ALGO string, e.g. \"level0:NA;level1:H-D_R\" (default: $HCCL_ALGO)");
  cmd.add_option("--sim", f.sim, "analytical (alpha-beta-gamma) or flow (max-min fair flows, ECMP)");
  cmd.add_option("--buffsize", f.buffsize, "HCCL_BUFFSIZE, e.g. 200M (default: the cluster's, 200 MB)");
  cmd.add_option("--straggler", f.stragglers, "RANK:MS, a rank entering late (repeatable)");
  cmd.add_option("--random-stragglers", f.random_stragglers, "COUNT:MAXMS[:SEED], random late ranks");
  cmd.add_option("--link-fault", f.faults,
                 "RANK:LEVEL:FACTOR, a degraded (0<F<1) or failed (0) link (repeatable)");
  cmd.add_option("--seed", f.seed, "ECMP hash seed (flow-level)");
  cmd.add_option("--qps", f.qps,
                 "HCCL_RDMA_QPS_PER_CONNECTION: RDMA queue pairs per rank pair, 1..32 (flow-level)");
  cmd.add_option("--qp-threshold", f.qp_threshold,
                 "HCCL_MULTI_QP_THRESHOLD: least bytes per QP, 1K..8192K (default 512K)");
  cmd.add_option("--nics-per-leaf", f.nics_per_leaf, "override the fabric's NICs per leaf switch");
  cmd.add_option("--oversubscription", f.oversubscription, "override the leaf down:up ratio (>= 1)");
  cmd.add_flag(
      "--no-dispatch", f.no_dispatch,
      "leave out the host dispatch cost per collective (device time only, the large-message plateau)");
  cmd.add_flag("--json", f.json, "print one JSON object");
}

Expected<Cluster> LoadClusterFlag(const SimFlags& f) {
  if (f.cluster.empty())
    return Status::InvalidArgument("--cluster: required (a name from data/clusters or a .json file)");
  NPUGAP_ASSIGN_OR_RETURN(Cluster c, comm::LoadCluster(f.cluster, comm::FindClustersDir()));
  // Site-specific fabric shape: the user's value replaces the cluster's assumption.
  if (f.nics_per_leaf < 0)
    return Status::InvalidArgument(fmt::format("--nics-per-leaf {}: must be >= 1", f.nics_per_leaf));
  if (f.nics_per_leaf > 0) c.fabric.nics_per_leaf = f.nics_per_leaf;
  if (f.oversubscription != 0) {
    if (!(f.oversubscription >= 1))
      return Status::InvalidArgument(fmt::format("--oversubscription {}: must be >= 1", f.oversubscription));
    c.fabric.oversubscription = {f.oversubscription, "--oversubscription", comm::Confidence::kAssumed};
  }
  return c;
}

nlohmann::json TimeoutJson(const comm::TimeoutReport& t) {
  nlohmann::json j{{"connect_effective_s", t.connect_effective_s},
                   {"exec_effective_s", t.exec_effective_s},
                   {"rdma_give_up_s", t.rdma_give_up_s},
                   {"connect_margin_s", t.connect_margin_s},
                   {"exec_margin_s", std::isfinite(t.exec_margin_s) ? nlohmann::json(t.exec_margin_s)
                                                                    : nlohmann::json(nullptr)}};
  j["errors"] = nlohmann::json::array();
  for (const auto& e : t.errors)
    j["errors"].push_back(
        {{"ranks", e.ranks}, {"class", e.error_class}, {"at_s", e.at_s}, {"reason", e.reason}});
  return j;
}

// --op moe-dispatch / moe-combine: one row, the usual columns plus DeepEP's metric.
int RunMoe(const CommFlags& f, const Cluster& cluster) {
  if (!f.collective_only_given.empty())
    return ReportError(Status::InvalidArgument(
        fmt::format("{}: not used by --op {} (the routing sets the sizes; the kernel is one mesh step)",
                    f.collective_only_given, f.op)));
  comm::MoeSpec spec = f.moe;
  auto phase = comm::ParseMoePhase(f.op);
  if (!phase.ok()) return ReportError(phase.status());
  auto dtype = comm::ParseMoeDtype(f.moe_dtype);
  if (!dtype.ok()) return ReportError(dtype.status());
  spec.phase = *phase;
  spec.dtype = *dtype;
  spec.dedup = !f.moe_no_dedup;
  auto options = BuildSimOptions(f.sim, cluster, f.sim.ranks);
  if (!options.ok()) return ReportError(options.status());
  auto r = comm::SimulateMoe(cluster, f.sim.ranks, spec, *options);
  if (!r.ok()) return ReportError(r.status());
  const comm::CollectiveResult& c = r->collective;
  if (f.sim.json) {
    nlohmann::json j{{"cluster", cluster.name},   {"ranks", f.sim.ranks},    {"op", f.op},
                     {"sim", f.sim.sim},          {"tokens", spec.tokens},   {"hidden", spec.hidden},
                     {"topk", spec.topk},         {"experts", spec.experts}, {"dtype", f.moe_dtype},
                     {"routing_seed", spec.seed}, {"dedup", spec.dedup}};
    j["rows"] = nlohmann::json::array();
    j["rows"].push_back({{"bytes", r->bytes},
                         {"time_us", c.time_s * 1e6},
                         {"algbw_gbps", c.algbw_gbps},
                         {"busbw_gbps", c.busbw_gbps},
                         {"algo", c.algo},
                         {"rounds", c.rounds},
                         {"dispatch_us", c.dispatch_s * 1e6},
                         {"deepep_bw_gbps", r->deepep_bw_gbps},
                         {"wire_bw_gbps", r->wire_bw_gbps},
                         {"rank0_tokens", r->rank0_tokens},
                         {"routed_pairs", r->routed},
                         {"token_copies", r->sent}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format(
      "# {} ({}), {} ranks, {}, {} model\n# {} tokens per rank, hidden {}, top-{} of {} experts ({} per "
      "rank), "
      "{}, routing drawn with seed {} (|randn|+1 then top-k, as DeepEP's test; not the benchmark's own "
      "draw), "
      "{}\n# DeepEP-style kernel: every peer at once, no HCCL host dispatch, no HCCL_BUFFSIZE rounds\n",
      cluster.name, cluster.description, f.sim.ranks, f.op, f.sim.sim, spec.tokens, spec.hidden, spec.topk,
      spec.experts, spec.experts / f.sim.ranks, f.moe_dtype, spec.seed,
      spec.dedup ? "one copy per destination rank" : "one copy per (token, expert) (--no-dedup)");
  std::cout << fmt::format("{:>14} {:>12} {:>12} {:>12} {:>12} {:>12}  {}\n", "size(B)", "time(us)",
                           "algbw(GB/s)", "busbw(GB/s)", "deepep(GB/s)", "wire(GB/s)", "algo");
  std::cout << fmt::format("{:>14.0f} {:>12.2f} {:>12.2f} {:>12.2f} {:>12.2f} {:>12.2f}  {}\n", r->bytes,
                           c.time_s * 1e6, c.algbw_gbps, c.busbw_gbps, r->deepep_bw_gbps, r->wire_bw_gbps,
                           c.algo);
  std::cout << fmt::format(
      "# rank 0 receives {} {} in dispatch (sends them back in combine); {} (token, expert) pairs "
      "routed, {} token copies sent\n# deepep = rank 0's tokens x hidden x 2 B / time, as DeepEP's test "
      "prints it (recv_x.numel() * 2); wire = the bytes rank 0 actually moves / time\n",
      r->rank0_tokens, spec.dedup ? "tokens" : "token copies (one per expert, --no-dedup)", r->routed,
      r->sent);
  return kExitOk;
}

int RunComm(const CommFlags& f) {
  auto cluster = LoadClusterFlag(f.sim);
  if (!cluster.ok()) return ReportError(cluster.status());
  if (f.sim.ranks < 1)
    return ReportError(Status::InvalidArgument(fmt::format("--ranks {}: must be >= 1", f.sim.ranks)));
  if (comm::IsMoeOp(f.op)) return RunMoe(f, *cluster);
  if (!f.moe_only_given.empty())
    return ReportError(Status::InvalidArgument(
        fmt::format("{}: only for --op moe-dispatch / moe-combine, not --op {}", f.moe_only_given, f.op)));
  auto op = comm::ParseOp(f.op);
  if (!op.ok()) return ReportError(op.status());
  auto sizes = ParseSizeRange(f.bytes);
  if (!sizes.ok()) return ReportError(sizes.status());
  auto options = BuildSimOptions(f.sim, *cluster, f.sim.ranks);
  if (!options.ok()) return ReportError(options.status());
  std::vector<comm::CollectiveResult> rows;
  for (double bytes : *sizes) {
    comm::CollectiveSpec spec;
    spec.op = *op;
    spec.bytes = bytes;
    spec.root = f.root;
    spec.peer = f.peer;
    auto r = comm::SimulateCollective(*cluster, f.sim.ranks, spec, *options);
    if (!r.ok()) return ReportError(r.status());
    rows.push_back(*r);
  }
  auto timeouts = comm::AnalyzeTimeouts(*cluster, rows.back(), *options, f.timeouts);
  if (!timeouts.ok()) return ReportError(timeouts.status());
  if (f.sim.json) {
    nlohmann::json j{{"cluster", cluster->name}, {"ranks", f.sim.ranks}, {"op", f.op}, {"sim", f.sim.sim}};
    j["rows"] = nlohmann::json::array();
    for (size_t i = 0; i < rows.size(); ++i)
      j["rows"].push_back({{"bytes", (*sizes)[i]},
                           {"time_us", rows[i].time_s * 1e6},
                           {"algbw_gbps", rows[i].algbw_gbps},
                           {"busbw_gbps", rows[i].busbw_gbps},
                           {"algo", rows[i].algo},
                           {"rounds", rows[i].rounds},
                           {"dispatch_us", rows[i].dispatch_s * 1e6}});
    j["timeouts"] = TimeoutJson(*timeouts);
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("# {} ({}), {} ranks, {}, {} model\n", cluster->name, cluster->description,
                           f.sim.ranks, f.op, f.sim.sim);
  std::cout << fmt::format(
      "# host dispatch per collective: {:.1f} us ({}, {}){}\n", cluster->hccl.dispatch_us.value,
      comm::ConfidenceName(cluster->hccl.dispatch_us.confidence), cluster->hccl.dispatch_us.source,
      f.sim.no_dispatch ? " -- left out (--no-dispatch)" : "");
  for (const auto& row : rows)
    if (row.algo == "level0:reduce-bcast" && !f.sim.no_dispatch) {
      std::cout << fmt::format(
          "# reduce-bcast rows (HCCL's one-server small-count executor): {:.1f} us, its share "
          "of the host tasks (docs/fidelity.md)\n",
          row.dispatch_s * 1e6);
      break;
    }
  std::cout << fmt::format("{:>14} {:>12} {:>12} {:>12} {:>12} {:>7}  {}\n", "size(B)", "count(fp32)",
                           "time(us)", "algbw(GB/s)", "busbw(GB/s)", "rounds", "algo");
  for (size_t i = 0; i < rows.size(); ++i)
    std::cout << fmt::format("{:>14.0f} {:>12.0f} {:>12.2f} {:>12.2f} {:>12.2f} {:>7}  {}\n", (*sizes)[i],
                             (*sizes)[i] / 4, rows[i].time_s * 1e6, rows[i].algbw_gbps, rows[i].busbw_gbps,
                             rows[i].rounds, rows[i].algo);
  const auto& t = *timeouts;
  std::cout << fmt::format(
      "# timeouts (largest size): connect {:.0f} s (margin {:.1f} s), exec {:.0f} s (margin {}), RDMA gives "
      "up after {:.1f} s\n",
      t.connect_effective_s, t.connect_margin_s, t.exec_effective_s,
      std::isfinite(t.exec_margin_s) ? fmt::format("{:.1f} s", t.exec_margin_s) : "none", t.rdma_give_up_s);
  for (const auto& e : t.errors)
    std::cout << fmt::format("# rank(s) {}: {} at {:.1f} s: {}\n", e.ranks, e.error_class, e.at_s, e.reason);
  return kExitOk;
}

int RunDp(const DpFlags& f) {
  auto cluster = LoadClusterFlag(f.sim);
  if (!cluster.ok()) return ReportError(cluster.status());
  comm::DpOptions o;
  double backward_ms = f.backward_ms, forward_ms = f.forward_ms;
  std::string compute_source = "given";
  if (f.backward_ms < 0 && f.backward_ms != -1)
    return ReportError(Status::InvalidArgument(fmt::format("--backward-ms {}: must be >= 0", f.backward_ms)));
  if (f.forward_ms < 0 && f.forward_ms != -1)
    return ReportError(Status::InvalidArgument(fmt::format("--forward-ms {}: must be >= 0", f.forward_ms)));
  if (!f.model.model_path.empty()) {
    auto model = LoadModelWithOptions(f.model);
    if (!model.ok()) return ReportError(model.status());
    for (const auto& [id, t] : model->graph.initializers) o.grad_bytes += static_cast<double>(t.nbytes());
    if (!(o.grad_bytes > 0))
      return ReportError(
          Status::InvalidArgument(f.model.model_path + ": the model has no initializers (no gradients)"));
    if (backward_ms < 0) {
      auto times = PerfPhaseTimes(*model, f.target);
      if (!times.ok()) return ReportError(times.status().WithContext(f.model.model_path));
      backward_ms = times->backward_ms;
      if (forward_ms < 0) forward_ms = times->forward_ms + times->optimizer_ms;
      compute_source = "perf model on " + f.target.spec;
    }
  } else if (!f.grad_bytes.empty()) {
    auto g = ParseSize(f.grad_bytes, "--grad-bytes");
    if (!g.ok()) return ReportError(g.status());
    o.grad_bytes = *g;
  } else {
    return ReportError(Status::InvalidArgument("--grad-bytes: required (or --model MODEL)"));
  }
  if (backward_ms < 0)
    return ReportError(
        Status::InvalidArgument("--backward-ms: required (or --model MODEL to take it from the "
                                "perf model)"));
  if (forward_ms < 0) forward_ms = 0;
  auto bucket = ParseSize(f.bucket, "--bucket");
  if (!bucket.ok()) return ReportError(bucket.status());
  o.bucket_bytes = *bucket;
  o.backward_s = backward_ms * 1e-3;
  o.forward_s = forward_ms * 1e-3;
  std::vector<int> counts =
      f.sim.ranks > 0 ? std::vector<int>{f.sim.ranks} : comm::DefaultDpRankCounts(*cluster);
  std::vector<comm::DpResult> rows;
  for (int n : counts) {
    auto sim = BuildSimOptions(f.sim, *cluster, n);
    if (!sim.ok()) return ReportError(sim.status());
    o.sim = *sim;
    auto r = comm::ModelDataParallelStep(*cluster, n, o);
    if (!r.ok()) return ReportError(r.status());
    rows.push_back(*r);
  }
  if (rows.empty())
    return ReportError(Status::InvalidArgument("--ranks: none of 8..16384 fits " + cluster->name));
  const comm::DpResult& last = rows.back();
  if (f.sim.json) {
    nlohmann::json j{{"cluster", cluster->name},
                     {"grad_bytes", o.grad_bytes},
                     {"bucket_bytes", o.bucket_bytes},
                     {"backward_ms", backward_ms},
                     {"forward_ms", forward_ms},
                     {"compute_source", compute_source},
                     {"ranks", last.ranks},
                     {"step_ms", last.step_s * 1e3},
                     {"exposed_comm_ms", last.exposed_comm_s * 1e3},
                     {"scaling_efficiency", last.scaling_efficiency}};
    j["rows"] = nlohmann::json::array();
    for (const auto& r : rows)
      j["rows"].push_back({{"ranks", r.ranks},
                           {"buckets", r.buckets},
                           {"step_ms", r.step_s * 1e3},
                           {"comm_ms", r.comm_s * 1e3},
                           {"exposed_comm_ms", r.exposed_comm_s * 1e3},
                           {"scaling_efficiency", r.scaling_efficiency},
                           {"algo", r.algo}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format(
      "# {}: data-parallel step, {:.1f} MB gradients in {:.1f} MB buckets, backward {:.3f} ms, forward "
      "{:.3f} ms "
      "({}), {} model\n",
      cluster->name, o.grad_bytes / 1e6, o.bucket_bytes / 1e6, backward_ms, forward_ms, compute_source,
      f.sim.sim);
  std::cout << fmt::format("{:>7} {:>8} {:>11} {:>11} {:>16} {:>11}  {}\n", "ranks", "buckets", "step(ms)",
                           "comm(ms)", "exposed comm(ms)", "efficiency", "algo");
  for (const auto& r : rows)
    std::cout << fmt::format("{:>7} {:>8} {:>11.3f} {:>11.3f} {:>16.3f} {:>10.1f}%  {}\n", r.ranks, r.buckets,
                             r.step_s * 1e3, r.comm_s * 1e3, r.exposed_comm_s * 1e3,
                             r.scaling_efficiency * 100, r.algo);
  return kExitOk;
}

}  // namespace

Command AddCommCommand(CLI::App& app) {
  auto comm_flags = std::make_shared<CommFlags>();
  auto dp_flags = std::make_shared<DpFlags>();
  CLI::App* cmd = app.add_subcommand(
      "comm", "collective times (nccl-tests style), timeouts and data-parallel scaling on a cluster");
  cmd->require_subcommand(0, 1);
  AddSimFlags(*cmd, comm_flags->sim);
  cmd->add_option("--op", comm_flags->op,
                  "allreduce, allgather, reducescatter, broadcast, reduce, alltoall, alltoallv, sendrecv, "
                  "moe-dispatch, moe-combine");
  cmd->add_option("--tokens", comm_flags->moe.tokens, "MoE: tokens per rank (default 4096)");
  cmd->add_option("--hidden", comm_flags->moe.hidden, "MoE: hidden size (default 7168)");
  cmd->add_option("--topk", comm_flags->moe.topk, "MoE: experts per token (default 8)");
  cmd->add_option("--experts", comm_flags->moe.experts, "MoE: routed experts over all ranks (default 256)");
  cmd->add_option("--dtype", comm_flags->moe_dtype, "MoE: int8 (with a per-token float32 scale) or bf16");
  cmd->add_option("--routing-seed", comm_flags->moe.seed, "MoE: seed of the drawn routing (default 0)");
  cmd->add_flag("--no-dedup", comm_flags->moe_no_dedup,
                "MoE: send a token once per (token, expert), not once per destination rank");
  cmd->add_option("--bytes", comm_flags->bytes, "MIN[:MAX[:xFACTOR]], e.g. 8M:4G:x2");
  cmd->add_option("--root", comm_flags->root, "broadcast / reduce root, send/recv source");
  cmd->add_option("--peer", comm_flags->peer, "send/recv destination");
  cmd->add_option("--connect-timeout", comm_flags->timeouts.connect_timeout_s, "HCCL_CONNECT_TIMEOUT in s");
  cmd->add_option("--exec-timeout", comm_flags->timeouts.exec_timeout_s, "HCCL_EXEC_TIMEOUT in s");
  cmd->add_option("--rdma-timeout", comm_flags->timeouts.rdma_timeout, "HCCL_RDMA_TIMEOUT exponent");
  cmd->add_option("--rdma-retry", comm_flags->timeouts.rdma_retry_cnt, "HCCL_RDMA_RETRY_CNT");

  CLI::App* dp =
      cmd->add_subcommand("dp", "data-parallel step: bucketed all-reduce overlapped with backward");
  AddSimFlags(*dp, dp_flags->sim);
  dp->add_option("--grad-bytes", dp_flags->grad_bytes, "gradient bytes, e.g. 1.4G");
  dp->add_option("--model", dp_flags->model.model_path, "ONNX model: gradient bytes = its initializer bytes");
  dp->add_option("--batch", dp_flags->model.batch, "with --model: bind the symbolic batch dim");
  dp->add_option("--backward-ms", dp_flags->backward_ms,
                 "backward compute time per step (default with --model: the perf model's)");
  dp->add_option(
      "--forward-ms", dp_flags->forward_ms,
      "forward + optimizer time per step, not overlapped (default 0; with --model: the perf model's)");
  AddTargetOption(*dp, dp_flags->target);
  dp->add_option("--bucket", dp_flags->bucket, "gradient bucket size (default 25M, DDP's)");
  const auto first_given = [cmd](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (cmd->get_option(n)->count() > 0) return std::string(n);
    return std::string();
  };
  return {cmd, [=] {
            if (dp->parsed()) return RunDp(*dp_flags);
            comm_flags->moe_only_given = first_given(
                {"--tokens", "--hidden", "--topk", "--experts", "--dtype", "--routing-seed", "--no-dedup"});
            comm_flags->collective_only_given = first_given({"--bytes", "--algo", "--root", "--peer"});
            return RunComm(*comm_flags);
          }};
}

}  // namespace npugap::cli
