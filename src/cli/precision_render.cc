#include "cli/precision_render.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace npugap::cli {
namespace {

using analysis::precision::ClassScores;
using analysis::precision::KeepSuggestion;
using analysis::precision::PrecisionComparison;
using analysis::precision::TensorComparison;

std::string Num(double v) {
  return std::isfinite(v) ? fmt::format("{:.9g}", v) : (std::isnan(v) ? "NaN" : (v > 0 ? "inf" : "-inf"));
}

// RFC 4180 quoting where a field needs it.
std::string Field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string ShapeText(const ir::Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

std::string ErrMessage(const TensorComparison& t) {
  std::vector<std::string> parts;
  if (t.metrics.non_finite_mismatch > 0)
    parts.push_back(fmt::format("{} INF/NaN values differ", t.metrics.non_finite_mismatch));
  if (t.metrics.saturated > 0) parts.push_back(fmt::format("{} saturated", t.metrics.saturated));
  if (std::isnan(t.metrics.cosine)) parts.push_back("cosine N/A: one side is all zero");
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

nlohmann::json TensorJson(const TensorComparison& t) {
  const auto& m = t.metrics;
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"name", t.name},
          {"node", t.node},
          {"op_type", t.op_type},
          {"target_format", t.target_format},
          {"shape", t.shape},
          {"elements", m.elements},
          {"cosine", num(m.cosine)},
          {"max_abs_err", num(m.max_abs_err)},
          {"max_rel_err", num(m.max_rel_err)},
          {"rmse", num(m.rmse)},
          {"ratio_rel_lt_1e-3", m.ratio_rel_lt_1e3},
          {"ratio_rel_lt_5e-3", m.ratio_rel_lt_5e3},
          {"overflow_count", m.overflow_count()},
          {"saturated", m.saturated},
          {"non_finite", m.target_non_finite},
          {"non_finite_mismatch", m.non_finite_mismatch},
          {"flushed_count", m.flushed},
          {"reference_max_abs", num(m.reference_max_abs)},
          {"pass", t.pass}};
}

// The written mixlist's own run: null when nothing was kept; not re-run outside mixed modes.
nlohmann::json MixlistJson(const analysis::precision::MixlistCheck& m) {
  if (!m.ran) return nullptr;
  nlohmann::json j{{"applies", m.applies}, {"achieved", m.achieved}};
  j["outputs"] = nlohmann::json::array();
  for (size_t i : m.verified.outputs) j["outputs"].push_back(TensorJson(m.verified.tensors[i]));
  return j;
}

nlohmann::json ClassJson(const ClassScores& cs) {
  nlohmann::json j = {{"output", cs.output},
                      {"rows", cs.rows},
                      {"classes", cs.classes},
                      {"top_k", cs.top_k},
                      {"top1_agreement", cs.top1_agreement},
                      {"top5_overlap", cs.top5_overlap}};
  if (cs.reference_accuracy) {
    j["reference_accuracy"] = *cs.reference_accuracy;
    j["target_accuracy"] = *cs.target_accuracy;
  }
  return j;
}

}  // namespace

std::string PrecisionCsv(const PrecisionComparison& c, const std::string& reference_dtype) {
  std::string out =
      "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,Cosine,MaxAbsErr,"
      "MaxRelativeErr,One Thousandth Err Ratio,Five Thousandths Err Ratio,NPU max,NPU min,NPU mean,NPU "
      "l2norm,"
      "Bench max,Bench min,Bench mean,Bench l2norm,Accuracy Reached or Not,Err_message,Node,Op Type,RMSE,"
      "Overflow Count,Flushed Count\n";
  for (const TensorComparison& t : c.tensors) {
    const auto& m = t.metrics;
    const std::vector<std::string> row = {t.name,
                                          t.name,
                                          t.target_format.empty() ? "float32" : t.target_format,
                                          reference_dtype,
                                          ShapeText(t.shape),
                                          ShapeText(t.shape),
                                          Num(m.cosine),
                                          Num(m.max_abs_err),
                                          Num(m.max_rel_err),
                                          Num(m.ratio_rel_lt_1e3),
                                          Num(m.ratio_rel_lt_5e3),
                                          Num(m.target.max),
                                          Num(m.target.min),
                                          Num(m.target.mean),
                                          Num(m.target.l2norm),
                                          Num(m.reference.max),
                                          Num(m.reference.min),
                                          Num(m.reference.mean),
                                          Num(m.reference.l2norm),
                                          t.pass ? "Yes" : "No",
                                          ErrMessage(t),
                                          t.node,
                                          t.op_type,
                                          Num(m.rmse),
                                          std::to_string(m.overflow_count()),
                                          std::to_string(m.flushed)};
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + Field(row[i]);
    out += "\n";
  }
  return out;
}

nlohmann::json PrecisionJson(const PrecisionReportHeader& h, const PrecisionComparison& c,
                             const KeepSuggestion* keep, double goal_cosine) {
  nlohmann::json j;
  j["model"] = h.model;
  j["target"] = h.target;
  j["precision_mode"] = h.mode;
  j["reference"] = h.reference;
  j["samples"] = c.samples;     // rows compared
  j["batches"] = c.input_sets;  // reference + emulated runs
  j["thresholds"] = {{"cos", h.thresholds.cosine},
                     {"max_abs", h.thresholds.max_abs},
                     {"cos_floor", h.thresholds.cosine_floor},
                     {"max_abs_ceiling", h.thresholds.max_abs_ceiling}};
  j["warnings"] = h.warnings;
  j["notes"] = h.notes;
  j["tensors"] = nlohmann::json::array();
  for (const auto& t : c.tensors) j["tensors"].push_back(TensorJson(t));
  j["failing_count"] =
      std::count_if(c.tensors.begin(), c.tensors.end(), [](const auto& t) { return !t.pass; });
  j["first_failing"] = c.first_failing ? TensorJson(c.tensors[*c.first_failing]) : nlohmann::json(nullptr);
  j["outputs"] = nlohmann::json::array();
  for (size_t i : c.outputs) j["outputs"].push_back(TensorJson(c.tensors[i]));
  j["outputs_pass"] = c.outputs_pass;
  j["classification"] = nlohmann::json::array();
  for (const auto& cs : c.classification) j["classification"].push_back(ClassJson(cs));
  j["top1_agreement"] =
      c.classification.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.classification[0].top1_agreement);
  j["top5_overlap"] =
      c.classification.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.classification[0].top5_overlap);
  j["accuracy"] = nullptr;
  for (const auto& cs : c.classification) {
    if (cs.reference_accuracy)
      j["accuracy"] = {{"reference", *cs.reference_accuracy}, {"target", *cs.target_accuracy}};
  }
  j["non_finite_inputs"] = nlohmann::json::array();
  for (const auto& f : c.non_finite_inputs) {
    j["non_finite_inputs"].push_back(
        {{"input", f.input}, {"sample", f.sample}, {"nan", f.nan}, {"inf", f.inf}});
  }
  if (keep) {
    nlohmann::json k;
    k["goal_cosine"] = goal_cosine;
    k["already_passing"] = keep->already_passing;
    k["achieved"] = keep->achieved;
    k["nodes"] = keep->nodes;
    k["node_count"] = keep->nodes.size();
    k["candidates"] = keep->ranking.size();
    k["op_types"] = keep->op_types;
    k["runs"] = keep->runs;
    k["budget_exhausted"] = keep->budget_exhausted;
    k["fp32_flops"] = keep->fp32_flops;
    k["candidate_flops"] = keep->candidate_flops;
    k["verified_outputs"] = nlohmann::json::array();
    for (size_t i : keep->verified.outputs)
      k["verified_outputs"].push_back(TensorJson(keep->verified.tensors[i]));
    k["mixlist_verified"] = MixlistJson(keep->mixlist);
    k["verified_top1_agreement"] = keep->verified.classification.empty()
                                       ? nlohmann::json(nullptr)
                                       : nlohmann::json(keep->verified.classification[0].top1_agreement);
    k["ranking"] = nlohmann::json::array();
    for (size_t i = 0; i < keep->ranking.size() && i < 20; ++i) {
      const auto& r = keep->ranking[i];
      k["ranking"].push_back({{"node", r.node},
                              {"op_type", r.op_type},
                              {"added_error", r.added_error},
                              {"overflow", r.overflow}});
    }
    j["suggest_keep"] = k;
  }
  return j;
}

std::string PrecisionText(const PrecisionReportHeader& h, const PrecisionComparison& c,
                          const KeepSuggestion* keep, double goal_cosine) {
  std::string s =
      fmt::format("model {}  target {}  mode {}  reference {}  samples {} ({} {} of {})\n", h.model, h.target,
                  h.mode, h.reference, c.samples, c.input_sets, c.input_sets == 1 ? "batch" : "batches",
                  c.input_sets > 0 ? c.samples / c.input_sets : 0);
  const auto failing =
      std::count_if(c.tensors.begin(), c.tensors.end(), [](const auto& t) { return !t.pass; });
  s += fmt::format("{} tensors compared, {} fail (cos < {} and max_abs > {}, or cos < {}, or max_abs > {})\n",
                   c.tensors.size(), failing, h.thresholds.cosine, h.thresholds.max_abs,
                   h.thresholds.cosine_floor, h.thresholds.max_abs_ceiling);
  for (const auto& f : c.non_finite_inputs) {
    s += fmt::format("input '{}' of sample {} holds {} NaN and {} INF values\n", f.input, f.sample, f.nan,
                     f.inf);
  }
  if (c.first_failing) {
    const auto& t = c.tensors[*c.first_failing];
    s += fmt::format("first failing tensor: '{}' from node '{}' ({}): cosine {}  max_abs {}  overflow {}\n",
                     t.name, t.node, t.op_type, Num(t.metrics.cosine), Num(t.metrics.max_abs_err),
                     t.metrics.overflow_count());
  }
  // The ten lowest cosines, for orientation.
  std::vector<size_t> order(c.tensors.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](size_t i) {
    const double v = c.tensors[i].metrics.cosine;
    return std::isnan(v) ? -2.0 : v;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  if (order.size() > 10) order.resize(10);
  const std::string head =
      fmt::format("  {:<32} {:<24} {:<10} {:>12} {:>11} {:>11} {:>11} {:>8} {:>5}\n", "tensor", "node",
                  "format", "cosine", "max_abs", "max_rel", "rmse", "overflow", "pass");
  auto row = [&](const TensorComparison& t) {
    return fmt::format("  {:<32} {:<24} {:<10} {:>12.9f} {:>11.4g} {:>11.4g} {:>11.4g} {:>8} {:>5}\n", t.name,
                       t.node, t.target_format, t.metrics.cosine, t.metrics.max_abs_err,
                       t.metrics.max_rel_err, t.metrics.rmse, t.metrics.overflow_count(),
                       t.pass ? "yes" : "NO");
  };
  s += "lowest cosines:\n" + head;
  for (size_t i : order) s += row(c.tensors[i]);
  s += "outputs:\n" + head;
  for (size_t i : c.outputs) s += row(c.tensors[i]);
  for (const auto& cs : c.classification) {
    s += fmt::format(
        "class scores '{}' ({} rows, {} classes): top-1 agreement {:.4f}, top-{} overlap {:.4f}\n", cs.output,
        cs.rows, cs.classes, cs.top1_agreement, cs.top_k, cs.top5_overlap);
    if (cs.reference_accuracy) {
      s += fmt::format("  accuracy: reference {:.4f}, target {:.4f}\n", *cs.reference_accuracy,
                       *cs.target_accuracy);
    }
  }
  s += c.outputs_pass ? "verdict: every output passes\n" : "verdict: an output FAILS\n";
  if (keep) {
    if (keep->already_passing) {
      s += fmt::format("suggest-keep: every output already reaches cosine {}; nothing to keep in FP32\n",
                       goal_cosine);
    } else {
      s += fmt::format(
          "suggest-keep: {} of {} candidate nodes kept in FP32 ({} op types), {} of {} FLOPs ({:.2f}%), "
          "{} runs{}\n",
          keep->nodes.size(), keep->ranking.size(), keep->op_types.size(), keep->fp32_flops,
          keep->candidate_flops,
          keep->candidate_flops > 0
              ? 100.0 * static_cast<double>(keep->fp32_flops) / static_cast<double>(keep->candidate_flops)
              : 0.0,
          keep->runs, keep->budget_exhausted ? " (pruning stopped at the run budget)" : "");
      for (const auto& n : keep->nodes) s += "  keep " + n + "\n";
      for (size_t i : keep->verified.outputs) {
        s += fmt::format("  verified output '{}': cosine {}  max_abs {}  pass {}\n",
                         keep->verified.tensors[i].name, Num(keep->verified.tensors[i].metrics.cosine),
                         Num(keep->verified.tensors[i].metrics.max_abs_err),
                         keep->verified.tensors[i].pass ? "yes" : "NO");
      }
      s += keep->achieved ? fmt::format("  goal cosine {} reached on the verification run\n", goal_cosine)
                          : fmt::format("  goal cosine {} NOT reached\n", goal_cosine);
      const analysis::precision::MixlistCheck& m = keep->mixlist;
      if (m.ran && !m.applies) {
        s += "  mixlist not re-run: --modify_mixlist only acts in mixed precision modes\n";
      } else if (m.ran) {
        for (size_t i : m.verified.outputs) {
          s += fmt::format("  mixlist run, output '{}': cosine {}  pass {}\n", m.verified.tensors[i].name,
                           Num(m.verified.tensors[i].metrics.cosine),
                           m.verified.tensors[i].pass ? "yes" : "NO");
        }
        s += fmt::format("  the mixlist {} the goal on its own run\n",
                         m.achieved ? "reaches" : "does NOT reach");
      }
    }
  }
  for (const auto& w : h.warnings) s += "warning: " + w + "\n";
  for (const auto& n : h.notes) s += "note: " + n + "\n";
  return s;
}

}  // namespace npugap::cli
