// The report rendered three ways. Renderers format what the report holds and compute nothing:
// every number, verdict and series comes from report/build.h.
#pragma once

#include <string>

#include "npugap/report/report.h"

namespace npugap::report {

struct TextOptions {
  bool color = false;  // ANSI colours (the CLI sets it on a TTY only)
  int width = 100;     // lines are word-wrapped at this many columns (commands are not)
};
// The one-screen summary: per section verdict, key numbers, first cause and fix, then the
// recommended configuration.
std::string RenderText(const Report& report, const TextOptions& options = {});

// One JSON object; schema in docs/report.md.
std::string RenderJson(const Report& report);

// One self-contained HTML document (inline CSS and SVG, no scripts, fonts or network).
std::string RenderHtml(const Report& report);

}  // namespace npugap::report
