// CSV fields of one line (kernel_reader_csv.h).
#include "kernel_reader_csv.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace npugap::analysis::perf {

bool LineReader::Next(std::string_view& line) {
  while (pos_ < text_.size()) {
    size_t eol = text_.find('\n', pos_);
    if (eol == std::string_view::npos) eol = text_.size();
    line = text_.substr(pos_, eol - pos_);
    pos_ = eol + 1;
    ++number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) return true;
  }
  return false;
}

Status SplitCsvLine(std::string_view line, std::vector<CsvField>& fields) {
  fields.clear();
  size_t i = 0;
  while (true) {
    CsvField f;
    if (i < line.size() && line[i] == '"') {
      const size_t start = ++i;
      while (true) {
        const size_t quote = line.find('"', i);
        if (quote == std::string_view::npos) {
          return Status::InvalidArgument(fmt::format(
              "column {}: unterminated quoted field (a quoted field may not span lines)", fields.size() + 1));
        }
        if (quote + 1 < line.size() && line[quote + 1] == '"') {
          f.doubled_quotes = true;
          i = quote + 2;
          continue;
        }
        f.text = line.substr(start, quote - start);
        i = quote + 1;
        break;
      }
      if (i < line.size() && line[i] != ',') {
        return Status::InvalidArgument(
            fmt::format("column {}: text after the closing quote of a quoted field", fields.size() + 1));
      }
    } else {
      const size_t comma = line.find(',', i);
      f.text = line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i);
      i = comma == std::string_view::npos ? line.size() : comma;
    }
    fields.push_back(f);
    if (i >= line.size()) return Status::Ok();
    ++i;  // the comma; a line ending in one has an empty last field
  }
}

std::string CsvValue(const CsvField& field) {
  if (!field.doubled_quotes) return std::string(field.text);
  std::string out;
  out.reserve(field.text.size());
  for (size_t i = 0; i < field.text.size(); ++i) {
    out += field.text[i];
    if (field.text[i] == '"') ++i;  // the second quote of the pair
  }
  return out;
}

std::string CsvQuote(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string out = "\"";
  for (char c : value) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Expected<std::vector<int64_t>> ParseDims(std::string_view text, char separator) {
  std::vector<int64_t> dims;
  if (text.empty()) return dims;
  constexpr int64_t kMaxElements = int64_t{1} << 48;
  int64_t elements = 1;
  size_t start = 0;
  while (true) {
    const size_t cut = text.find(separator, start);
    const std::string_view d =
        text.substr(start, cut == std::string_view::npos ? std::string_view::npos : cut - start);
    int64_t v = -1;
    const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (d.empty() || ec != std::errc() || end != d.data() + d.size() || v < 0) {
      return Status::InvalidArgument(fmt::format("unparseable dim '{}' in shape", d));
    }
    if (v > 0 && elements > kMaxElements / v) {
      return Status::InvalidArgument(fmt::format("shape has more than 2^48 elements (dim '{}')", d));
    }
    if (v > 0) elements *= v;
    dims.push_back(v);
    if (cut == std::string_view::npos) return dims;
    start = cut + 1;
  }
}

Expected<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("{}: cannot open", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace npugap::analysis::perf
