// CSV fields of one line and operand shapes, for the kernel-record readers (kernel_csv.cc,
// kernel_profile_reader.cc).
// RFC 4180 quoting within a line: a field in double quotes may hold commas, and "" stands for one
// quote. A quoted field may not span lines: no profiler these readers take writes one, and keeping
// records on lines is what lets every error name its line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/base/status.h"

namespace npugap::analysis::perf {

// The non-blank lines of a text, each without its line break (\n or \r\n), with 1-based numbers.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  // The next non-blank line into `line`; false at the end.
  bool Next(std::string_view& line);
  int number() const { return number_; }  // of the line last returned

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

struct CsvField {
  std::string_view text;        // without the enclosing quotes
  bool doubled_quotes = false;  // `text` holds "" pairs, each one quote of the value
};

// Splits `line` (without its line break) into `fields`. A malformed quote is an error that names
// the 1-based column: "column 3: unterminated quoted field ...".
Status SplitCsvLine(std::string_view line, std::vector<CsvField>& fields);

// The field's value: `text` with each "" read as ".
std::string CsvValue(const CsvField& field);

// `value` as one CSV field: as is, or quoted when it holds a comma, a quote or a line break.
std::string CsvQuote(std::string_view value);

// Dims separated by `separator` ("32x3x224x224", "32,3,224,224"); empty text is a scalar. Each dim a
// non-negative integer, their product (zeros aside) at most 2^48 elements: byte counts are int64, and
// a larger shape would overflow them into negative times. The error names the dim.
Expected<std::vector<int64_t>> ParseDims(std::string_view text, char separator);

// The file's bytes; the error reads "PATH: cannot open".
Expected<std::string> ReadTextFile(const std::string& path);

}  // namespace npugap::analysis::perf
