// A small SVG plotter for the HTML report: line and bar charts with axes, ticks, labels, a legend
// and labelled marker rules. Output is a standalone <svg> element (no scripts, no external fonts).
#pragma once

#include <string>
#include <vector>

#include "npugap/report/report.h"

namespace npugap::report {

struct SvgSize {
  int width = 880;
  int height = 300;
};

std::string RenderSvgChart(const Chart& chart, const SvgSize& size = {});

// Tick values covering [lo, hi] at a 1-2-5 step, about `target` of them (axes, tests).
std::vector<double> NiceTicks(double lo, double hi, int target);

// Text safe inside XML / HTML element content and attribute values.
std::string EscapeXml(const std::string& text);

}  // namespace npugap::report
