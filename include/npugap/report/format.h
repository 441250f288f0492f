// Number formatting for the report builders: the text of a Metric is fixed when the section is
// built, so the text, JSON and HTML renderers all show the same digits.
#pragma once

#include <cstdint>
#include <string>

namespace npugap::report {

std::string FormatBytes(double bytes);       // "512 B", "3.4 MiB", "12.50 GiB"
std::string FormatMs(double ms);             // "0.042 ms", "12.3 ms", "1.52 s"
std::string FormatPercent(double fraction);  // 0.873 -> "87.3%"
std::string FormatCount(int64_t n);          // 11689512 -> "11,689,512"

}  // namespace npugap::report
