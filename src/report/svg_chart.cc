// SVG line / bar charts. Coordinates are computed here (layout is rendering); the data are the
// chart's series as the report builders filled them.
#include "npugap/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace npugap::report {
namespace {

constexpr int kLeft = 72, kRight = 24, kTitleTop = 34, kBottom = 52, kNoteLine = 14;
constexpr const char* kPalette[] = {"#2563eb", "#d97706", "#059669", "#7c3aed", "#db2777", "#0891b2"};
constexpr const char* kMarkerColor = "#dc2626";
constexpr double kOffScaleFactor = 4;

std::string TickText(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.1e}", v);
  if (a >= 100 || v == std::floor(v)) return fmt::format("{:.0f}", v);
  if (a >= 1) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

struct Frame {
  double x0, x1, y0, y1;  // data range
  int w, h;
  bool log_x;
  int top;  // the plot's top edge: below the title and any off-scale notes
  double px(double x) const {
    const double plot = w - kLeft - kRight;
    if (log_x) {
      const double lx0 = std::log(x0), lx1 = std::log(x1);
      return kLeft + (lx1 > lx0 ? (std::log(x) - lx0) / (lx1 - lx0) : 0.5) * plot;
    }
    return kLeft + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * plot;
  }
  double py(double y) const {
    const double plot = h - top - kBottom;
    return top + plot - (y1 > y0 ? (y - y0) / (y1 - y0) : 0) * plot;
  }
};

}  // namespace

std::string EscapeXml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1) return {lo};
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  // The 1-2-5 step nearest the raw step (geometric midpoints), so the count stays near `target`.
  const double r = raw / mag;
  const double step = mag * (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10);
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::string RenderSvgChart(const Chart& chart, const SvgSize& size) {
  const bool bar = chart.kind == ChartKind::kBar;
  Frame f{std::numeric_limits<double>::max(),
          std::numeric_limits<double>::lowest(),
          0,
          0,
          size.width,
          size.height,
          chart.log_x && !bar,
          kTitleTop};
  double ymax = 0;
  for (const Series& s : chart.series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      if (f.log_x && s.x[i] <= 0) continue;
      f.x0 = std::min(f.x0, s.x[i]);
      f.x1 = std::max(f.x1, s.x[i]);
      ymax = std::max(ymax, s.y[i]);
    }
  }
  // A horizontal marker far above the data (a 64 GiB device limit over a 1 GiB model) would
  // flatten the curve; such markers are a note in the title row instead of stretching the axis.
  const double data_max = ymax;
  const auto off_scale = [&](const Marker& m) { return data_max > 0 && m.at > kOffScaleFactor * data_max; };
  for (const Marker& m : chart.y_markers) {
    if (off_scale(m))
      f.top += kNoteLine;
    else
      ymax = std::max(ymax, m.at);
  }
  const int kTop = f.top;
  const bool empty = f.x0 > f.x1;
  if (empty) f.x0 = 0, f.x1 = 1;
  if (bar) {
    f.x0 = -0.5;
    f.x1 = std::max<double>(static_cast<double>(chart.categories.size()), 1.0) - 0.5;
  }
  // Cosine similarities near 1 are flat on a zero-based axis: such charts start near their data.
  double ymin = 0;
  if (!chart.zero_based) {
    ymin = ymax;
    for (const Series& s : chart.series)
      for (double y : s.y)
        if (std::isfinite(y)) ymin = std::min(ymin, y);
    for (const Marker& m : chart.y_markers)
      if (!off_scale(m)) ymin = std::min(ymin, m.at);
    const double pad = std::max((ymax - ymin) * 0.1, std::fabs(ymax) * 1e-6);
    ymin -= pad;
    ymax += pad;
  }
  std::vector<double> yticks =
      chart.zero_based ? NiceTicks(0, ymax > 0 ? ymax * 1.05 : 1, 5) : NiceTicks(ymin, ymax, 5);
  if (yticks.empty()) yticks = {ymin};
  f.y0 = chart.zero_based ? 0 : std::min(ymin, yticks.front());
  f.y1 = chart.zero_based ? std::max(yticks.back(), ymax > 0 ? ymax * 1.05 : 1.0)
                          : std::max(ymax, yticks.back());

  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" class=\"chart\" viewBox=\"0 0 {} {}\" "
      "width=\"{}\" "
      "height=\"{}\" role=\"img\" aria-label=\"{}\">\n",
      EscapeXml(chart.id), size.width, size.height, size.width, size.height, EscapeXml(chart.title));
  o +=
      fmt::format("<text x=\"{}\" y=\"20\" class=\"chart-title\">{}</text>\n", kLeft, EscapeXml(chart.title));
  const int plot_bottom = size.height - kBottom, plot_right = size.width - kRight;
  // Grid and y ticks.
  for (double t : yticks) {
    const double y = f.py(t);
    o += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>\n", kLeft, y,
                     plot_right, y);
    o += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>\n", kLeft - 6,
                     y + 4, TickText(t));
  }
  // X ticks: categories, the data's own x values on a log axis (rank counts), else 1-2-5 ticks.
  std::vector<std::pair<double, std::string>> xticks;
  if (bar) {
    for (size_t i = 0; i < chart.categories.size(); ++i)
      xticks.emplace_back(static_cast<double>(i), chart.categories[i]);
  } else if (f.log_x && !chart.series.empty()) {
    for (double x : chart.series.front().x) {
      if (x > 0) xticks.emplace_back(x, TickText(x));
    }
  } else if (!empty) {
    bool integral = true;  // node indices: no tick at 0.5
    for (const Series& s : chart.series)
      for (double x : s.x) integral = integral && x == std::floor(x);
    for (double t : NiceTicks(f.x0, f.x1, 8)) {
      if (!integral || t == std::floor(t)) xticks.emplace_back(t, TickText(t));
    }
  }
  for (const auto& [x, label] : xticks) {
    const double px = f.px(x);
    o += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"axis\"/>\n", px,
                     plot_bottom, px, plot_bottom + 5);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n", px,
                     plot_bottom + 18, EscapeXml(label));
  }
  o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"axis\"/>\n", kLeft, plot_bottom,
                   plot_right, plot_bottom);
  o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"axis\"/>\n", kLeft, kTop, kLeft,
                   plot_bottom);
  o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis-label\" text-anchor=\"middle\">{}</text>\n",
                   (kLeft + plot_right) / 2, size.height - 10, EscapeXml(chart.x_label));
  o += fmt::format(
      "<text x=\"16\" y=\"{}\" class=\"axis-label\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
      "{})\">{}</text>\n",
      (kTop + plot_bottom) / 2, (kTop + plot_bottom) / 2, EscapeXml(chart.y_label));
  if (empty) {
    o += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">no data</text>\n",
                     (kLeft + plot_right) / 2, (kTop + plot_bottom) / 2);
  }
  // Data.
  const size_t nseries = std::max<size_t>(chart.series.size(), 1);
  for (size_t si = 0; si < chart.series.size(); ++si) {
    const Series& s = chart.series[si];
    const char* color = kPalette[si % std::size(kPalette)];
    if (bar) {
      const double slot = (f.px(1) - f.px(0)) * 0.7;
      const double w = slot / static_cast<double>(nseries);
      for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        const double x = f.px(s.x[i]) - slot / 2 + w * static_cast<double>(si);
        const double y = f.py(std::max(s.y[i], 0.0));
        o += fmt::format(
            "<path class=\"bar\" d=\"M{:.1f},{}V{:.1f}H{:.1f}V{}Z\" fill=\"{}\"><title>{}: "
            "{}</title></path>\n",
            x, plot_bottom, y, x + w, plot_bottom, color, EscapeXml(s.name), TickText(s.y[i]));
        o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n",
                         x + w / 2, y - 4, TickText(s.y[i]));
      }
      continue;
    }
    std::string d;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i]) || (f.log_x && s.x[i] <= 0)) continue;
      d += fmt::format("{}{:.1f},{:.1f}", d.empty() ? "M" : "L", f.px(s.x[i]), f.py(s.y[i]));
    }
    if (d.empty()) continue;
    o += fmt::format("<path class=\"line\" d=\"{}\" stroke=\"{}\" fill=\"none\"/>\n", d, color);
    if (s.x.size() <= 40) {
      for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!std::isfinite(s.y[i]) || (f.log_x && s.x[i] <= 0)) continue;
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n", f.px(s.x[i]),
                         f.py(s.y[i]), color);
      }
    }
  }
  // Marker rules with labels.
  int off_scale_row = 0;
  for (const Marker& m : chart.y_markers) {
    if (off_scale(m)) {
      o += fmt::format(
          "<text x=\"{}\" y=\"{}\" class=\"marker-label\" text-anchor=\"end\" fill=\"{}\">&#9650; {} "
          "(above the plot)</text>\n",
          plot_right, kTitleTop - 2 + kNoteLine * off_scale_row++, kMarkerColor, EscapeXml(m.label));
      continue;
    }
    const double y = f.py(m.at);
    o += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"marker\" stroke=\"{}\"/>\n", kLeft, y,
        plot_right, y, kMarkerColor);
    o += fmt::format(
        "<text x=\"{}\" y=\"{:.1f}\" class=\"marker-label\" text-anchor=\"end\" fill=\"{}\">{}</text>\n",
        plot_right - 4, y - 5, kMarkerColor, EscapeXml(m.label));
  }
  for (const Marker& m : chart.x_markers) {
    const double x = f.px(m.at);
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"marker\" stroke=\"{}\"/>\n", x, kTop,
        x, plot_bottom, kMarkerColor);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"marker-label\" fill=\"{}\">{}</text>\n", x + 4,
                     kTop + 12, kMarkerColor, EscapeXml(m.label));
  }
  // Legend when there is more than one series: in the title row, right-aligned.
  if (chart.series.size() > 1) {
    int width = 0;
    for (const Series& s : chart.series) width += 24 + 7 * static_cast<int>(s.name.size());
    int x = plot_right - width;
    for (size_t si = 0; si < chart.series.size(); ++si) {
      o += fmt::format("<rect x=\"{}\" y=\"11\" width=\"10\" height=\"10\" fill=\"{}\"/>", x,
                       kPalette[si % std::size(kPalette)]);
      o += fmt::format("<text x=\"{}\" y=\"20\" class=\"tick\">{}</text>\n", x + 14,
                       EscapeXml(chart.series[si].name));
      x += 24 + 7 * static_cast<int>(chart.series[si].name.size());
    }
  }
  o += "</svg>\n";
  return o;
}

}  // namespace npugap::report
