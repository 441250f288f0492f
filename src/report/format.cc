#include "npugap/report/format.h"

#include <cmath>

#include <fmt/format.h>

namespace npugap::report {

std::string FormatBytes(double bytes) {
  const double a = std::fabs(bytes);
  if (a < 1024) return fmt::format("{:.0f} B", bytes);
  if (a < 1024.0 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024);
  if (a < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

std::string FormatMs(double ms) {
  if (ms >= 1000) return fmt::format("{:.2f} s", ms / 1000);
  if (ms >= 10) return fmt::format("{:.1f} ms", ms);
  if (ms >= 0.1) return fmt::format("{:.2f} ms", ms);
  return fmt::format("{:.1f} us", ms * 1000);
}

std::string FormatPercent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

std::string FormatCount(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace npugap::report
