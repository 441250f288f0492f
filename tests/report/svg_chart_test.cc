// The SVG plotter: ticks, paths, bars, markers, log axis, escaping, empty charts.
#include <gtest/gtest.h>

#include <regex>

#include "npugap/report/svg_chart.h"

namespace npugap::report {
namespace {

int Count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// The x coordinates of a path's points, in order.
std::vector<double> PathXs(const std::string& svg) {
  std::smatch m;
  std::vector<double> xs;
  if (!std::regex_search(svg, m, std::regex("class=\"line\" d=\"([^\"]+)\""))) return xs;
  const std::string d = m[1];
  std::regex point("[ML]([0-9.]+),([0-9.]+)");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), point); it != std::sregex_iterator(); ++it)
    xs.push_back(std::stod((*it)[1]));
  return xs;
}

TEST(NiceTicks, CoverTheRangeAtAOneTwoFiveStep) {
  const auto t = NiceTicks(0, 10.5, 5);
  ASSERT_GE(t.size(), 3u);
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_GE(t.back(), 10.0 - 1e-9);
  const double step = t[1] - t[0];
  EXPECT_DOUBLE_EQ(step, 2.0);
  for (size_t i = 1; i < t.size(); ++i) EXPECT_NEAR(t[i] - t[i - 1], step, 1e-12);
  EXPECT_DOUBLE_EQ(NiceTicks(0, 0.037, 4)[1], 0.01);
  EXPECT_EQ(NiceTicks(3, 3, 5).size(), 1u);  // degenerate range: one tick, no loop
}

TEST(SvgChart, LineChartHasOnePathPointPerValueAndLabelledMarkers) {
  Chart c{"chart-x",
          "Title & <more>",
          ChartKind::kLine,
          "node",
          "GiB",
          {},
          {{"held", {0, 1, 2, 3, 4}, {1, 3, 2, 5, 4}}},
          {{"first failing layer", 2}},
          {{"limit", 4.5}},
          false};
  const std::string svg = RenderSvgChart(c);
  EXPECT_NE(svg.find("id=\"chart-x\""), std::string::npos);
  EXPECT_NE(svg.find("Title &amp; &lt;more&gt;"), std::string::npos);
  const auto xs = PathXs(svg);
  ASSERT_EQ(xs.size(), 5u);
  for (size_t i = 1; i < xs.size(); ++i) EXPECT_GT(xs[i], xs[i - 1]);
  EXPECT_EQ(Count(svg, "class=\"marker\""), 2);
  EXPECT_NE(svg.find(">limit<"), std::string::npos);
  EXPECT_NE(svg.find(">first failing layer<"), std::string::npos);
  EXPECT_NE(svg.find(">node<"), std::string::npos);
  EXPECT_NE(svg.find(">GiB<"), std::string::npos);
}

TEST(SvgChart, HigherValuesAreDrawnHigher) {
  Chart c{"c", "t", ChartKind::kLine, "x", "y", {}, {{"s", {0, 1}, {1, 10}}}, {}, {}, false};
  const std::string svg = RenderSvgChart(c);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("d=\"M[0-9.]+,([0-9.]+)L[0-9.]+,([0-9.]+)\"")));
  EXPECT_GT(std::stod(m[1]), std::stod(m[2]));  // SVG y grows downwards
}

TEST(SvgChart, BarChartHasOneBarPerCategoryPerSeries) {
  Chart c{"bars",
          "t",
          ChartKind::kBar,
          "kernel",
          "ms",
          {"Conv2D", "MatMul", "TransData"},
          {{"dev", {0, 1, 2}, {3, 2, 1}}, {"deploy", {0, 1, 2}, {1, 1, 0.5}}},
          {},
          {},
          false};
  const std::string svg = RenderSvgChart(c);
  EXPECT_EQ(Count(svg, "class=\"bar\""), 6);
  EXPECT_NE(svg.find(">TransData<"), std::string::npos);
  EXPECT_NE(svg.find(">deploy<"), std::string::npos);  // legend for two series
}

TEST(SvgChart, LogAxisSpacesDoublingsEvenlyAndTicksTheData) {
  Chart c{"r", "t", ChartKind::kLine, "ranks", "ms", {}, {{"s", {8, 16, 32, 64}, {1, 2, 3, 4}}}, {},
          {},  true};
  const std::string svg = RenderSvgChart(c);
  const auto xs = PathXs(svg);
  ASSERT_EQ(xs.size(), 4u);
  EXPECT_NEAR(xs[1] - xs[0], xs[2] - xs[1], 0.2);
  EXPECT_NEAR(xs[2] - xs[1], xs[3] - xs[2], 0.2);
  EXPECT_NE(svg.find(">64<"), std::string::npos);
}

TEST(SvgChart, EmptyChartSaysNoDataAndDrawsNoPath) {
  Chart c{"e", "t", ChartKind::kLine, "x", "y", {}, {{"s", {}, {}}}, {}, {}, false};
  const std::string svg = RenderSvgChart(c);
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"line\""), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace npugap::report

namespace npugap::report {
namespace {

TEST(SvgChart, AMarkerFarAboveTheDataIsANoteNotTheAxisTop) {
  Chart c{"m",
          "t",
          ChartKind::kLine,
          "x",
          "GiB",
          {},
          {{"s", {0, 1, 2}, {0.2, 0.5, 0.4}}},
          {},
          {{"available 61 GiB", 61}, {"training total", 0.9}},
          false};
  const std::string svg = RenderSvgChart(c);
  EXPECT_NE(svg.find("available 61 GiB (above the plot)"), std::string::npos);
  EXPECT_EQ(svg.find(">60<"), std::string::npos);  // the axis stays near the data
  EXPECT_EQ(Count(svg, "class=\"marker\""), 1);    // only the near marker is a rule
}

TEST(SvgChart, IntegerXGetsNoFractionalTicks) {
  Chart c{"i", "t",  ChartKind::kLine, "node", "y", {}, {{"s", {0, 1, 2, 3, 4}, {1, 2, 3, 4, 5}}}, {},
          {},  false};
  const std::string svg = RenderSvgChart(c);
  EXPECT_EQ(svg.find(">0.5<"), std::string::npos);
  EXPECT_NE(svg.find(">4<"), std::string::npos);
}

}  // namespace
}  // namespace npugap::report

namespace npugap::report {
namespace {

TEST(SvgChart, NonZeroBasedAxisStartsNearTheData) {
  Chart c{"z",
          "t",
          ChartKind::kLine,
          "layer",
          "cosine",
          {},
          {{"s", {0, 1, 2}, {0.9999, 0.995, 0.97}}},
          {},
          {{"threshold 0.99", 0.99}},
          false};
  c.zero_based = false;
  const std::string svg = RenderSvgChart(c);
  EXPECT_EQ(svg.find("text-anchor=\"end\">0<"), std::string::npos);  // no y tick at zero
  EXPECT_NE(svg.find("text-anchor=\"end\">0.98<"), std::string::npos);
}

}  // namespace
}  // namespace npugap::report
