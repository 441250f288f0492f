// The JSON form of the report (docs/report.md): stable top-level keys, each section with verdict.
#include <cmath>

#include <nlohmann/json.hpp>

#include "npugap/report/render.h"

namespace npugap::report {
namespace {

// Counts and byte sizes print as integers (1197, not 1197.0).
nlohmann::json Number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<int64_t>(v);
  return v;
}

nlohmann::json ChartJson(const Chart& c) {
  nlohmann::json j{
      {"id", c.id},           {"title", c.title}, {"kind", ChartKindName(c.kind)}, {"x_label", c.x_label},
      {"y_label", c.y_label}, {"log_x", c.log_x}, {"zero_based", c.zero_based}};
  if (!c.categories.empty()) j["categories"] = c.categories;
  j["series"] = nlohmann::json::array();
  for (const Series& s : c.series) j["series"].push_back({{"name", s.name}, {"x", s.x}, {"y", s.y}});
  auto markers = [](const std::vector<Marker>& ms) {
    nlohmann::json a = nlohmann::json::array();
    for (const Marker& m : ms) a.push_back({{"label", m.label}, {"at", m.at}});
    return a;
  };
  j["x_markers"] = markers(c.x_markers);
  j["y_markers"] = markers(c.y_markers);
  return j;
}

nlohmann::json SectionJson(const Section& s) {
  nlohmann::json j{{"title", s.title}, {"verdict", VerdictName(s.verdict)}};
  if (s.verdict == Verdict::kNotAvailable) {
    j["reason"] = s.not_available;
    return j;
  }
  nlohmann::json metrics = nlohmann::json::object();
  for (const Metric& m : s.metrics) {
    metrics[m.key] = {{"label", m.label}, {"value", Number(m.value)}, {"unit", m.unit}, {"text", m.text}};
  }
  j["metrics"] = metrics;
  j["cause"] = s.cause.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.cause);
  j["fix"] = s.fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.fix);
  j["notes"] = s.notes;
  j["details"] = s.details;
  j["charts"] = nlohmann::json::array();
  for (const Chart& c : s.charts) j["charts"].push_back(ChartJson(c));
  return j;
}

}  // namespace

std::string RenderJson(const Report& r) {
  nlohmann::json j;
  j["tool"] = {{"name", "npugap"}, {"version", r.tool_version}};
  j["model"] = {{"path", r.model.path},
                {"nodes", r.model.nodes},
                {"parameters", r.model.parameters},
                {"weight_bytes", r.model.weight_bytes},
                {"opset", r.model.opset}};
  j["target"] = {{"name", r.config.target}, {"description", r.config.target_description}};
  nlohmann::json config{{"batch", r.config.batch}, {"train", r.config.train}, {"samples", r.config.samples}};
  config["dev_target"] =
      r.config.dev_target.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.config.dev_target);
  config["optimizer"] =
      r.config.optimizer.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.config.optimizer);
  config["precision_mode"] =
      r.config.precision_mode.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.config.precision_mode);
  config["cluster"] = r.config.cluster.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.config.cluster);
  config["ranks"] = r.config.ranks;
  config["dev_batch"] = r.config.dev_batch > 0 ? nlohmann::json(r.config.dev_batch) : nlohmann::json(nullptr);
  j["config"] = config;
  for (const Section* s : r.sections()) j[s->key] = SectionJson(*s);
  j["recommendations"] = nlohmann::json::array();
  for (const Setting& st : r.recommendations) {
    j["recommendations"].push_back(
        {{"kind", SettingKindName(st.kind)}, {"name", st.name}, {"value", st.value}, {"why", st.why}});
  }
  j["warnings"] = r.warnings;
  return j.dump(2) + "\n";
}

}  // namespace npugap::report
