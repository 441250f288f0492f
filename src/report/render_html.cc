// One self-contained HTML page: inline CSS, inline SVG charts, no scripts, fonts or links out.
// Element ids (docs/report.md) let tests and users find each section: section-<key>,
// verdict-<key>, chart-*, section-recommendations.
#include <fmt/format.h>

#include "npugap/report/format.h"
#include "npugap/report/render.h"
#include "npugap/report/svg_chart.h"

namespace npugap::report {
namespace {

constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;background:#f5f6f8;color:#1f2937}
header{background:#111827;color:#f9fafb;padding:20px 32px}
header h1{margin:0 0 6px;font-size:22px}
header .sub{color:#d1d5db;font-size:14px}
main{max-width:960px;margin:0 auto;padding:20px 24px 40px}
.overview{display:flex;gap:10px;flex-wrap:wrap;margin-bottom:18px}
.overview a{flex:1;min-width:150px;text-decoration:none;color:inherit;background:#fff;border-radius:8px;padding:10px 14px;border-left:6px solid #9ca3af;box-shadow:0 1px 2px rgba(0,0,0,.06)}
.overview a.ok{border-color:#16a34a}.overview a.warning{border-color:#d97706}.overview a.fail{border-color:#dc2626}
.overview .name{font-size:13px;color:#6b7280}.overview .v{font-weight:600;font-size:15px}
section{background:#fff;border-radius:10px;padding:16px 22px;margin-bottom:16px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
section h2{margin:0 0 10px;font-size:18px;display:flex;align-items:center;gap:10px}
.badge{font-size:12px;font-weight:700;padding:3px 9px;border-radius:999px;color:#fff;text-transform:uppercase;letter-spacing:.03em}
.badge.ok{background:#16a34a}.badge.warning{background:#d97706}.badge.fail{background:#dc2626}.badge.not_available{background:#9ca3af}
.na{color:#6b7280;font-style:italic}
table.metrics{border-collapse:collapse;margin:6px 0 10px}
table.metrics td{padding:3px 16px 3px 0;font-size:14px}
table.metrics td.val{font-weight:600;font-variant-numeric:tabular-nums}
.cause,.fix{margin:4px 0;font-size:14px}
.cause b{color:#b91c1c}.fix b{color:#047857}
.note{font-size:13px;color:#92400e;background:#fffbeb;border-radius:6px;padding:6px 10px;margin:6px 0}
details{font-size:13px;margin:6px 0}
details li{margin:2px 0;font-family:ui-monospace,"DejaVu Sans Mono",monospace}
svg.chart{display:block;margin:10px 0;max-width:100%;height:auto;background:#fcfcfd;border:1px solid #e5e7eb;border-radius:6px}
svg .chart-title{font-size:13px;font-weight:600;fill:#111827}
svg .tick{font-size:11px;fill:#4b5563}
svg .axis-label{font-size:12px;fill:#374151}
svg .grid{stroke:#e5e7eb;stroke-width:1}
svg .axis{stroke:#6b7280;stroke-width:1}
svg .line{stroke-width:2}
svg .marker{stroke-width:1.5;stroke-dasharray:6 4}
svg .marker-label{font-size:11px;font-weight:600}
table.config{border-collapse:collapse;width:100%;font-size:13px}
table.config td{border-top:1px solid #e5e7eb;padding:6px 8px;vertical-align:top}
table.config td.kind{color:#6b7280;white-space:nowrap}
table.config code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;word-break:break-all}
footer{color:#6b7280;font-size:12px;text-align:center;padding-bottom:24px}
)";

std::string E(const std::string& s) { return EscapeXml(s); }

std::string SectionHtml(const Section& s) {
  const std::string v(VerdictName(s.verdict));
  std::string o = fmt::format(
      "<section id=\"section-{}\" class=\"{}\">\n<h2>{} <span id=\"verdict-{}\" class=\"badge "
      "{}\">{}</span></h2>\n",
      E(s.key), v, E(s.title), E(s.key), v, v == "not_available" ? "not available" : v);
  if (s.verdict == Verdict::kNotAvailable) {
    o += "<p class=\"na\">Not available: " + E(s.not_available) + "</p>\n</section>\n";
    return o;
  }
  o += "<table class=\"metrics\">\n";
  for (const Metric& m : s.metrics) {
    o += fmt::format("<tr data-key=\"{}\"><td>{}</td><td class=\"val\">{}</td></tr>\n", E(m.key), E(m.label),
                     E(m.text));
  }
  o += "</table>\n";
  if (!s.cause.empty()) o += "<p class=\"cause\"><b>Cause:</b> " + E(s.cause) + "</p>\n";
  if (!s.fix.empty()) o += "<p class=\"fix\"><b>Fix:</b> " + E(s.fix) + "</p>\n";
  for (const auto& n : s.notes) o += "<p class=\"note\">" + E(n) + "</p>\n";
  for (const Chart& c : s.charts) o += RenderSvgChart(c);
  if (!s.details.empty()) {
    o += fmt::format("<details><summary>{} finding{}</summary><ul>\n", s.details.size(),
                     s.details.size() == 1 ? "" : "s");
    for (const auto& d : s.details) o += "<li>" + E(d) + "</li>\n";
    o += "</ul></details>\n";
  }
  return o + "</section>\n";
}

}  // namespace

std::string RenderHtml(const Report& r) {
  std::string sub = "target " + r.config.target;
  if (!r.config.target_description.empty()) sub += " (" + r.config.target_description + ")";
  if (!r.config.dev_target.empty()) sub += " · dev " + r.config.dev_target;
  if (r.config.batch > 0) sub += fmt::format(" · batch {}", r.config.batch);
  if (r.config.train) sub += " · training (" + r.config.optimizer + ")";
  if (!r.config.cluster.empty())
    sub += fmt::format(" · cluster {} × {} ranks", r.config.cluster, r.config.ranks);
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'; img-src data:\">\n";
  o += "<title>npugap report: " + E(r.model.path) + " on " + E(r.config.target) + "</title>\n<style>" +
       kStyle + "</style>\n</head>\n<body>\n";
  o += fmt::format(
      "<header id=\"report-header\"><h1>{}</h1><div class=\"sub\">{}</div><div class=\"sub\">{} nodes · {} "
      "parameters · opset {}</div></header>\n",
      E(r.model.path), E(sub), FormatCount(r.model.nodes), FormatCount(r.model.parameters), r.model.opset);
  o += "<main>\n<nav class=\"overview\" id=\"overview\">\n";
  for (const Section* s : r.sections()) {
    const std::string v(VerdictName(s->verdict));
    o += fmt::format(
        "<a href=\"#section-{}\" class=\"{}\"><div class=\"name\">{}</div><div class=\"v\">{}</div></a>\n",
        E(s->key), v, E(s->title), v == "not_available" ? "not available" : v);
  }
  o += "</nav>\n";
  for (const Section* s : r.sections()) o += SectionHtml(*s);
  o += "<section id=\"section-recommendations\">\n<h2>Recommended configuration</h2>\n";
  if (r.recommendations.empty()) {
    o += "<p class=\"na\">No setting follows from the sections that ran.</p>\n";
  } else {
    o += "<table class=\"config\">\n";
    for (const Setting& st : r.recommendations) {
      const std::string line = st.kind == SettingKind::kEnv       ? "export " + st.name + "=" + st.value
                               : st.kind == SettingKind::kAtcFlag ? st.name + "=" + st.value
                               : st.kind == SettingKind::kBatch   ? "batch " + st.value
                                                                  : st.value;
      o += fmt::format("<tr><td class=\"kind\">{}</td><td><code>{}</code><br>{}</td></tr>\n",
                       E(std::string(SettingKindName(st.kind))), E(line), E(st.why));
    }
    o += "</table>\n";
  }
  o += "</section>\n";
  if (!r.warnings.empty()) {
    o += "<section id=\"section-warnings\"><h2>Warnings</h2><ul>\n";
    for (const auto& w : r.warnings) o += "<li>" + E(w) + "</li>\n";
    o += "</ul></section>\n";
  }
  o += "</main>\n<footer>npugap " + E(r.tool_version) +
       " · predictions without an NPU; see docs/report.md</footer>\n</body>\n</html>\n";
  return o;
}

}  // namespace npugap::report
