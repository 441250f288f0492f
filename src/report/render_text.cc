// The terminal summary: one block per section, then the recommended configuration. Colour only
// when asked (the CLI asks on a TTY).
#include <algorithm>

#include <fmt/format.h>

#include "npugap/report/format.h"
#include "npugap/report/render.h"

namespace npugap::report {
namespace {

// Word-wraps `s` to `width` columns; continuation lines start with `indent`.
std::string Wrap(const std::string& s, int width, const std::string& indent) {
  const auto w = static_cast<size_t>(std::max(width, 20));
  std::string out, line;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find(' ', pos);
    if (end == std::string::npos) end = s.size();
    std::string word = s.substr(pos, end - pos);
    pos = end + 1;
    while (word.size() > w) {  // a path or command longer than a line: break it hard
      if (!line.empty()) out += line + "\n" + indent, line.clear();
      out += word.substr(0, w) + "\n" + indent;
      word = word.substr(w);
    }
    if (!line.empty() && line.size() + 1 + word.size() > w) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

std::string Badge(Verdict v, bool color) {
  static constexpr const char* kText[] = {"OK", "WARNING", "FAIL", "N/A"};
  static constexpr const char* kColor[] = {"\033[32m", "\033[33m", "\033[1;31m", "\033[2m"};
  const auto i = static_cast<size_t>(v);
  const std::string text = fmt::format("{:<8}", kText[i]);
  return color ? kColor[i] + text + "\033[0m" : text;
}

}  // namespace

std::string RenderText(const Report& r, const TextOptions& o) {
  const auto bold = [&](const std::string& s) { return o.color ? "\033[1m" + s + "\033[0m" : s; };
  std::string out;
  out += bold("npugap analyze") + fmt::format("  {}  ({} nodes, {} parameters, opset {})\n", r.model.path,
                                              FormatCount(r.model.nodes), FormatCount(r.model.parameters),
                                              r.model.opset);
  std::string config = "target " + r.config.target;
  if (!r.config.dev_target.empty()) config += "  dev " + r.config.dev_target;
  if (r.config.batch > 0) config += fmt::format("  batch {}", r.config.batch);
  if (r.config.dev_batch > 0 && r.config.dev_batch != r.config.batch)
    config += fmt::format("  dev batch {}", r.config.dev_batch);
  if (r.config.train) config += "  training (" + r.config.optimizer + ")";
  if (!r.config.precision_mode.empty()) config += "  precision mode " + r.config.precision_mode;
  if (!r.config.cluster.empty()) config += fmt::format("  cluster {} x {}", r.config.cluster, r.config.ranks);
  out += config + "\n\n";
  const std::string indent(20, ' ');
  for (const Section* s : r.sections()) {
    std::string head = fmt::format("{:<11}", s->key) + Badge(s->verdict, o.color) + " ";
    if (s->verdict == Verdict::kNotAvailable) {
      out += head + Wrap(s->not_available, o.width - 20, indent) + "\n";
      continue;
    }
    std::string numbers;
    for (size_t i = 0; i < s->metrics.size() && i < 3; ++i) {
      numbers += (i ? " | " : "") + s->metrics[i].label + ": " + s->metrics[i].text;
    }
    const std::string deeper = indent + "       ";
    out += head + Wrap(numbers, o.width - 20, indent) + "\n";
    if (!s->cause.empty()) out += indent + "cause: " + Wrap(s->cause, o.width - 27, deeper) + "\n";
    if (!s->fix.empty()) out += indent + "fix:   " + Wrap(s->fix, o.width - 27, deeper) + "\n";
    for (const auto& n : s->notes) out += indent + "note:  " + Wrap(n, o.width - 27, deeper) + "\n";
  }
  if (!r.recommendations.empty()) {
    out += '\n';  // (not "\n" + std::string: GCC 12 warns -Wrestrict on that falsely)
    out += bold("recommended configuration");
    out += '\n';
    for (const Setting& st : r.recommendations) {
      switch (st.kind) {
        case SettingKind::kAtcFlag:
          out += fmt::format("  atc flag   {}={}\n", st.name, st.value);
          break;
        case SettingKind::kEnv:
          out += fmt::format("  export     {}={}\n", st.name, st.value);
          break;
        case SettingKind::kBatch:
          out += fmt::format("  batch      {}\n", st.value);
          break;
        case SettingKind::kCommand:
          out += fmt::format("  command    {}\n", st.value);
          break;
      }
    }
  }
  for (const auto& w : r.warnings) out += "warning: " + Wrap(w, o.width - 9, "         ") + "\n";
  return out;
}

}  // namespace npugap::report
