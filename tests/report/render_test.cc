// Report struct -> renderers: the JSON keeps the documented keys and values, the text summary
// shows every section (colour only when asked), the HTML is self-contained and has every section.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "npugap/report/render.h"
#include "sample_report.h"

namespace npugap::report {
namespace {

using testing::SampleReport;

TEST(ReportJson, HasTheStableKeysAndEachSectionsVerdict) {
  const auto j = nlohmann::json::parse(RenderJson(SampleReport()));
  for (const char* key :
       {"model", "target", "compat", "precision", "memory", "perf", "comm", "recommendations"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["compat"]["verdict"], "warning");
  EXPECT_EQ(j["memory"]["verdict"], "fail");
  EXPECT_EQ(j["comm"]["verdict"], "ok");
  EXPECT_EQ(j["precision"]["verdict"], "not_available");
  EXPECT_EQ(j["precision"]["reason"], "the precision analysis has not landed");
  EXPECT_FALSE(j["precision"].contains("metrics"));  // no numbers for a section that did not run
  EXPECT_EQ(j["memory"]["metrics"]["max_batch"]["value"], 48);
  EXPECT_EQ(j["memory"]["fix"], "use batch 48 (the largest that fits)");
  EXPECT_TRUE(j["comm"]["cause"].is_null());
  EXPECT_EQ(j["model"]["path"], "models/<odd>&name.onnx");
  EXPECT_EQ(j["target"]["name"], "ascend910b2");
  const auto& chart = j["memory"]["charts"][0];
  EXPECT_EQ(chart["id"], "chart-memory-timeline");
  EXPECT_EQ(chart["series"][0]["y"].size(), 4u);
  EXPECT_EQ(chart["y_markers"][0]["at"], 2.5);
  EXPECT_EQ(j["recommendations"][1]["kind"], "env");
  EXPECT_EQ(j["recommendations"][1]["name"], "HCCL_BUFFSIZE");
}

TEST(ReportText, ShowsEverySectionCauseFixAndConfiguration) {
  const std::string t = RenderText(SampleReport());
  for (const char* s : {"compat", "precision", "memory", "perf", "comm"})
    EXPECT_NE(t.find(s), std::string::npos) << s;
  EXPECT_NE(t.find("FAIL"), std::string::npos);
  EXPECT_NE(t.find("N/A"), std::string::npos);
  EXPECT_NE(t.find("the precision analysis has not landed"), std::string::npos);
  EXPECT_NE(t.find("fix:   use batch 48"), std::string::npos);
  EXPECT_NE(t.find("export     HCCL_BUFFSIZE=200"), std::string::npos);
  EXPECT_NE(t.find("atc flag   --soc_version=Ascend910B2"), std::string::npos);
  EXPECT_EQ(t.find('\033'), std::string::npos) << "no colour unless asked";
}

TEST(ReportText, ColourOnlyWhenAskedAndLinesFitTheWidth) {
  Report r = SampleReport();
  r.memory.cause = std::string(300, 'x');
  TextOptions o;
  o.color = true;
  o.width = 100;
  const std::string t = RenderText(r, o);
  EXPECT_NE(t.find("\033[1;31m"), std::string::npos);
  std::istringstream lines(RenderText(r, {false, 100}));
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

TEST(ReportHtml, SelfContainedWithEverySection) {
  const std::string h = RenderHtml(SampleReport());
  for (const char* id : {"section-compat", "section-precision", "section-memory", "section-perf",
                         "section-comm", "section-recommendations", "verdict-memory", "chart-memory-timeline",
                         "chart-compat-placement", "chart-comm-allreduce"})
    EXPECT_NE(h.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("@import"), std::string::npos);
  EXPECT_EQ(h.find("src="), std::string::npos);
  EXPECT_EQ(h.find("https://"), std::string::npos);
  EXPECT_NE(h.find("models/&lt;odd&gt;&amp;name.onnx"), std::string::npos);
  EXPECT_EQ(h.find("<odd>"), std::string::npos);
  EXPECT_NE(h.find("Not available: the performance analysis has not landed"), std::string::npos);
}

TEST(ReportGate, FailsOnlyForNamedFailingSections) {
  const Report r = SampleReport();
  EXPECT_TRUE(AnyFailed(r, {"memory"}));
  EXPECT_TRUE(AnyFailed(r, {"compat", "memory"}));
  EXPECT_FALSE(AnyFailed(r, {"compat", "comm"}));     // warning and ok do not fail the gate
  EXPECT_FALSE(AnyFailed(r, {"precision", "perf"}));  // not available never fails it
  EXPECT_FALSE(AnyFailed(r, {}));
}

}  // namespace
}  // namespace npugap::report
