// Reader of the calibration CSV format (include/npugap/analysis/perf/calibrate/kernel_csv.h).
#include "npugap/analysis/perf/calibrate/kernel_csv.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "kernel_reader_csv.h"
#include "kernel_reader_spellings.h"

namespace npugap::analysis::perf {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t cut = s.find(sep, start);
    out.push_back(s.substr(start, cut == std::string_view::npos ? std::string_view::npos : cut - start));
    if (cut == std::string_view::npos) break;
    start = cut + 1;
  }
  return out;
}

}  // namespace

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

std::string FormatOperand(const Operand& operand) {
  std::string dims;
  for (int64_t d : operand.shape) {
    if (!dims.empty()) dims += 'x';
    dims += std::to_string(d);
  }
  return operand.format + ":" + operand.dtype + ":" + dims;
}

Expected<Operand> ParseOperand(std::string_view text) {
  const auto parts = Split(text, ':');
  if (parts.size() != 3) {
    return Status::InvalidArgument(fmt::format("operand '{}' is not FORMAT:dtype:d0xd1x...", text));
  }
  Operand op;
  op.format = std::string(parts[0]);
  if (!IsDeviceFormat(parts[0]))
    return Status::InvalidArgument(fmt::format("operand '{}': unknown format '{}'", text, parts[0]));
  if (!IsIdentifier(parts[1])) {
    return Status::InvalidArgument(fmt::format("operand '{}': bad dtype '{}'", text, parts[1]));
  }
  op.dtype = std::string(parts[1]);
  auto dims = ParseDims(parts[2], 'x');
  if (!dims.ok()) return dims.status().WithContext(fmt::format("operand '{}'", text));
  op.shape = std::move(*dims);
  return op;
}

Expected<KernelTable> ParseKernelCsv(std::string_view text, const std::string& origin) {
  KernelTable table;
  constexpr std::array<std::string_view, 5> kRequired = {"op_type", "block_dim", "inputs", "outputs",
                                                         "time_us"};
  std::array<int, 5> col{-1, -1, -1, -1, -1};
  size_t header_fields = 0;
  std::vector<CsvField> csv;
  LineReader lines(text);
  std::string_view line;
  while (lines.Next(line)) {
    const int line_no = lines.number();
    if (Status split = SplitCsvLine(line, csv); !split.ok()) {
      return split.WithContext(fmt::format("{}:{}", origin, line_no));
    }
    const auto& fields = csv;
    if (table.header.empty()) {
      table.header = std::string(line);
      header_fields = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        for (size_t r = 0; r < kRequired.size(); ++r) {
          if (fields[i].text == kRequired[r]) col[r] = static_cast<int>(i);
        }
      }
      for (size_t r = 0; r < kRequired.size(); ++r) {
        if (col[r] < 0) {
          return Status::InvalidArgument(fmt::format("{}:{}: missing column '{}' in the header '{}'", origin,
                                                     line_no, kRequired[r], line));
        }
      }
      continue;
    }
    const auto where = [&](size_t r) {
      return fmt::format("{}:{}: column '{}' ({})", origin, line_no, kRequired[r], col[r] + 1);
    };
    for (size_t r = 0; r < kRequired.size(); ++r) {
      if (static_cast<size_t>(col[r]) >= fields.size()) {
        return Status::InvalidArgument(fmt::format("{}: missing (the row has {} fields, the header {})",
                                                   where(r), fields.size(), header_fields));
      }
    }
    KernelRecord rec;
    rec.line = line_no;
    rec.text = std::string(line);
    rec.kernel.op_type = CsvValue(fields[col[0]]);
    rec.kernel.name = fmt::format("{}#{}", rec.kernel.op_type, line_no);
    if (!IsIdentifier(rec.kernel.op_type)) {
      return Status::InvalidArgument(fmt::format("{}: bad op type '{}'", where(0), rec.kernel.op_type));
    }
    const std::string_view bd = fields[col[1]].text;
    const auto [bend, bec] = std::from_chars(bd.data(), bd.data() + bd.size(), rec.kernel.block_dim);
    if (bd.empty() || bec != std::errc() || bend != bd.data() + bd.size() || rec.kernel.block_dim < 0) {
      return Status::InvalidArgument(fmt::format("{}: '{}' is not a non-negative integer", where(1), bd));
    }
    for (size_t r : {size_t{2}, size_t{3}}) {
      const std::string list = CsvValue(fields[col[r]]);
      if (list.empty()) continue;  // a kernel without outputs (AtomicAddrClean)
      auto& dst = r == 2 ? rec.kernel.inputs : rec.kernel.outputs;
      for (std::string_view item : Split(list, ';')) {
        auto op = ParseOperand(item);
        if (!op.ok()) return op.status().WithContext(where(r));
        dst.push_back(std::move(*op));
      }
    }
    const std::string tv = CsvValue(fields[col[4]]);
    char* end = nullptr;
    rec.time_us = std::strtod(tv.c_str(), &end);
    if (tv.empty() || *end != '\0' || !std::isfinite(rec.time_us)) {
      return Status::InvalidArgument(fmt::format("{}: '{}' is not a number", where(4), tv));
    }
    if (rec.time_us < 0) {
      return Status::InvalidArgument(fmt::format("{}: negative time {}", where(4), tv));
    }
    table.records.push_back(std::move(rec));
  }
  if (table.header.empty()) return Status::InvalidArgument(origin + ": empty file, expected a header row");
  return table;
}

Expected<KernelTable> ReadKernelCsv(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseKernelCsv(*text, path);
}

}  // namespace npugap::analysis::perf
