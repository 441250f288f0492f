// msprof op_summary_*.csv and torch_npu kernel_details.csv read into kernel records
// (kernel_msprof_reader.h; the mapping and its sources in docs/kernel-profiles.md).
//
// Column names. msprof writes op_summary (Ascend/msprof, analysis/csrc/application/summary/
// op_summary_assembler.cpp: BASE_HEADER, ADDITIONAL_TENSOR_HEADER; the same names in the Python
// writer analysis/viewer/ai_core_op_report.py and in docs/en/user_guide/profile_data_file_references.md,
// "op_summary"). torch_npu's KernelViewParser copies op_summary into kernel_details.csv, renaming
// its first columns by position (Ascend/pytorch, torch_npu/profiler/analysis/prof_common_func/
// _csv_headers.py: OP_SUMMARY_SHOW_HEADERS -> OP_SUMMARY_KERNEL_BASE_HEADERS): Op Name -> Name,
// OP Type -> Type, Task Type -> Accelerator Core, Task Duration(us) -> Duration(us); the tensor
// columns keep their names. "Block Dim" became "Block Num" in both (msprof commit 14417d42, torch_npu
// 48596093, 2026); files of either age are read. torch_npu's inductor profiler renames only Op Name
// and Task Duration(us) (torch_npu/_inductor/profiler.py), so each column takes either spelling.
//
// Cell values. Shapes: dims joined by ',' and tensors by ';', a scalar an empty entry, the field
// wrapped in literal quotes inside the CSV quoting ("""1,3;64""" in the file; cann_trace_db_dumper.cpp
// AddTensorShapeInfo: Join + AddQuotation, escaped by TaskInfoData::escapeQuotes). Data types and
// formats: ';'-joined GE enum names (kernel_reader_spellings.cc). A side without tensors, and any
// tensor column of a row profiled at task_time l0, reads "N/A".
#include "kernel_msprof_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>

#include "kernel_reader_csv.h"
#include "kernel_reader_spellings.h"

namespace npugap::analysis::perf {
namespace {

enum Column : size_t {
  kName,
  kType,
  kCore,
  kDuration,
  kBlock,
  kInShapes,
  kInTypes,
  kInFormats,
  kOutShapes,
  kOutTypes,
  kOutFormats,
  kColumns
};

// Each column's spellings: op_summary's (or the older name) first, then kernel_details' (or the newer).
constexpr std::array<std::array<std::string_view, 2>, kColumns> kColumnNames = {{
    {"Op Name", "Name"},
    {"OP Type", "Type"},
    {"Task Type", "Accelerator Core"},
    {"Task Duration(us)", "Duration(us)"},
    {"Block Dim", "Block Num"},
    {"Input Shapes", ""},
    {"Input Data Types", ""},
    {"Input Formats", ""},
    {"Output Shapes", ""},
    {"Output Data Types", ""},
    {"Output Formats", ""},
}};

// The accelerators whose rows are kernels (geTaskTypeMap in msprof's number_mapping.cpp). MIX_AIC /
// MIX_AIV run on the cube and vector cores of one AI Core group (a long-K MatMul on A2/A3 becomes
// MIX_AIC, profile_data_file_references.md); their Block Dim is the primary core's. Every other
// type (COMMUNICATION, HCCL, DSA_SQE, DVPP, WRITE_BACK, FFTS_PLUS, N/A, ...) is skipped and counted.
constexpr std::array<std::string_view, 5> kKernelCores = {"AI_CORE", "AI_VECTOR_CORE", "AI_CPU", "MIX_AIC",
                                                          "MIX_AIV"};

constexpr std::string_view kNotAvailable = "N/A";

std::vector<std::string_view> SplitList(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t cut = s.find(sep, start);
    std::string_view item =
        s.substr(start, cut == std::string_view::npos ? std::string_view::npos : cut - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    out.push_back(item);
    if (cut == std::string_view::npos) return out;
    start = cut + 1;
  }
}

// A shapes cell as msprof writes it, literal quotes inside the CSV quoting, or without them.
std::string_view Unwrap(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

bool Absent(std::string_view s) { return s.empty() || s == kNotAvailable; }

class RowReader {
 public:
  RowReader(const std::string& origin, ProfileFormat format) : origin_(origin), format_(format) {}

  Status Header(const std::vector<CsvField>& fields, int line) {
    header_fields_ = fields.size();
    for (size_t c = 0; c < kColumns; ++c) {
      for (std::string_view name : kColumnNames[c]) {
        if (name.empty() || col_[c] >= 0) continue;
        for (size_t i = 0; i < fields.size(); ++i) {
          if (fields[i].text == name) {
            col_[c] = static_cast<int>(i);
            found_[c] = name;
          }
        }
      }
      if (col_[c] < 0) {
        const auto& names = kColumnNames[c];
        const bool shapes = c >= kInShapes;
        return Status::InvalidArgument(fmt::format(
            "{}:{}: missing column '{}'{} in the {} header{}", origin_, line, names[0],
            names[1].empty() ? "" : fmt::format(" (or '{}')", names[1]), ProfileFormatName(format_),
            shapes ? " (tensor shapes are recorded by msprof --task-time=l1, torch_npu profiler_level Level1)"
                   : ""));
      }
    }
    return Status::Ok();
  }

  // One data row: a new record, a launch merged into an earlier record, or a skipped row.
  Status Row(const std::vector<CsvField>& fields, int line, KernelProfile& profile) {
    line_ = line;
    ++profile.rows;
    for (size_t c = 0; c < kColumns; ++c) {
      if (static_cast<size_t>(col_[c]) >= fields.size()) {
        return Bad(
            c, fmt::format("missing (the row has {} fields, the header {})", fields.size(), header_fields_));
      }
      value_[c] = CsvValue(fields[col_[c]]);
    }
    const std::string& core = value_[kCore];
    if (std::find(kKernelCores.begin(), kKernelCores.end(), core) == kKernelCores.end()) {
      ++skipped_[core.empty() ? std::string("(empty)") : core];
      return Status::Ok();
    }
    if (Absent(value_[kType])) {  // profiled at task_time l0: no kernel type, no tensors
      ++skipped_["no kernel type (N/A)"];
      return Status::Ok();
    }
    if (!IsIdentifier(value_[kType])) return Bad(kType, fmt::format("bad kernel type '{}'", value_[kType]));
    int block_dim = 0;  // N/A: not recorded, the cost model chooses
    if (const std::string& b = value_[kBlock]; b != kNotAvailable) {
      const auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), block_dim);
      if (b.empty() || ec != std::errc() || end != b.data() + b.size() || block_dim < 0) {
        return Bad(kBlock, fmt::format("'{}' is not a non-negative integer", b));
      }
    }
    const std::string& d = value_[kDuration];
    double time_us = -1;
    const auto [dend, dec] = std::from_chars(d.data(), d.data() + d.size(), time_us);
    if (d.empty() || dec != std::errc() || dend != d.data() + d.size() || !std::isfinite(time_us)) {
      return Bad(kDuration, fmt::format("'{}' is not a number", d));
    }
    if (time_us < 0) return Bad(kDuration, fmt::format("negative time {}", d));

    // A launch of a kernel seen before: same name, type, core, block dim and tensors.
    std::string key;
    for (size_t c = 0; c < kColumns; ++c) {
      if (c != kDuration) (key += value_[c]) += '\x1f';
    }
    if (const auto it = index_.find(key); it != index_.end()) {
      Launches& l = launches_[it->second];
      l.sum_us += time_us;
      ++l.count;
      ++profile.merged_launches;
      return Status::Ok();
    }
    KernelRecord rec;
    rec.line = line;
    rec.kernel.op_type = value_[kType];
    rec.kernel.name = value_[kName].empty() ? fmt::format("{}#{}", value_[kType], line) : value_[kName];
    rec.kernel.block_dim = block_dim;
    rec.kernel.aicpu = core == "AI_CPU";
    NPUGAP_RETURN_IF_ERROR(Operands(kInShapes, rec.kernel.inputs));
    NPUGAP_RETURN_IF_ERROR(Operands(kOutShapes, rec.kernel.outputs));
    index_.emplace(std::move(key), profile.table.records.size());
    launches_.push_back({time_us, 1});
    profile.table.records.push_back(std::move(rec));
    return Status::Ok();
  }

  // Means over the launches, each record's row in the calibration CSV format, the skipped counts.
  void Finish(KernelProfile& profile) const {
    profile.table.header = "op_type,block_dim,inputs,outputs,time_us,launches,name";
    for (size_t i = 0; i < profile.table.records.size(); ++i) {
      KernelRecord& r = profile.table.records[i];
      r.launches = launches_[i].count;
      r.time_us = launches_[i].sum_us / launches_[i].count;
      const auto list = [](const std::vector<Operand>& ops) {
        std::string s;
        for (const Operand& op : ops) (s += s.empty() ? "" : ";") += FormatOperand(op);
        return s;
      };
      // Microseconds to 6 decimals (profilers print 3), trailing zeros dropped: 367.2, not
      // 367.20000000000005.
      std::string time = fmt::format("{:.6f}", r.time_us);
      time.erase(time.find_last_not_of('0') + 1);
      if (time.back() == '.') time.pop_back();
      r.text =
          fmt::format("{},{},{},{},{},{},{}", r.kernel.op_type, r.kernel.block_dim, list(r.kernel.inputs),
                      list(r.kernel.outputs), time, r.launches, CsvQuote(r.kernel.name));
    }
    profile.skipped.assign(skipped_.begin(), skipped_.end());
    std::stable_sort(profile.skipped.begin(), profile.skipped.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
  }

 private:
  struct Launches {
    double sum_us = 0;
    int count = 0;
  };

  Status Bad(size_t c, const std::string& what) const {
    return Status::InvalidArgument(
        fmt::format("{}:{}: column '{}' ({}): {}", origin_, line_, found_[c], col_[c] + 1, what));
  }

  // One side's tensors from its shapes, data types and formats columns (`shapes`, +1, +2).
  Status Operands(size_t shapes, std::vector<Operand>& out) const {
    const std::string_view shape_cell = Unwrap(value_[shapes]);
    const std::string& type_cell = value_[shapes + 1];
    const std::string& format_cell = value_[shapes + 2];
    if (Absent(shape_cell) && Absent(type_cell) && Absent(format_cell)) return Status::Ok();
    // N/A on one cell alone is no tensor there; the counts check below then names the mismatch.
    const auto entries = [](std::string_view cell) {
      return cell == kNotAvailable ? std::vector<std::string_view>{} : SplitList(cell, ';');
    };
    const auto dims = entries(shape_cell);
    const auto types = entries(type_cell);
    const auto formats = entries(format_cell);
    for (size_t c : {shapes + 1, shapes + 2}) {
      const size_t n = c == shapes + 1 ? types.size() : formats.size();
      if (n != dims.size()) {
        return Bad(c, fmt::format("{} tensors, but column '{}' ({}) has {}", n, found_[shapes],
                                  col_[shapes] + 1, dims.size()));
      }
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      const auto where = [&](std::string_view cell) { return fmt::format("tensor {} '{}'", i + 1, cell); };
      Operand op;
      auto format = FormatFromCann(formats[i]);
      if (!format.ok())
        return Bad(shapes + 2, fmt::format("{}: {}", where(formats[i]), format.status().message()));
      auto dtype = DtypeFromCann(types[i]);
      if (!dtype.ok())
        return Bad(shapes + 1, fmt::format("{}: {}", where(types[i]), dtype.status().message()));
      auto shape = ParseDims(dims[i], ',');
      if (!shape.ok()) return Bad(shapes, fmt::format("{}: {}", where(dims[i]), shape.status().message()));
      op.format = std::move(*format);
      op.dtype = std::move(*dtype);
      op.shape = std::move(*shape);
      out.push_back(std::move(op));
    }
    return Status::Ok();
  }

  const std::string& origin_;
  const ProfileFormat format_;
  size_t header_fields_ = 0;
  int line_ = 0;
  std::array<int, kColumns> col_ = [] {
    std::array<int, kColumns> a{};
    a.fill(-1);
    return a;
  }();
  std::array<std::string_view, kColumns> found_{};  // the header's spelling of each column
  std::array<std::string, kColumns> value_;         // the row's cells, CSV quoting undone
  std::unordered_map<std::string, size_t> index_;   // launch key -> record
  std::vector<Launches> launches_;                  // per record
  std::map<std::string, int> skipped_;
};

}  // namespace

Expected<KernelProfile> ParseProfilerCsv(std::string_view text, const std::string& origin,
                                         ProfileFormat format) {
  KernelProfile profile;
  profile.format = format;
  RowReader reader(origin, format);
  std::vector<CsvField> fields;
  bool header = true;
  LineReader lines(text);
  std::string_view line;
  while (lines.Next(line)) {
    const int line_no = lines.number();
    if (Status s = SplitCsvLine(line, fields); !s.ok())
      return s.WithContext(fmt::format("{}:{}", origin, line_no));
    NPUGAP_RETURN_IF_ERROR(header ? reader.Header(fields, line_no) : reader.Row(fields, line_no, profile));
    header = false;
  }
  reader.Finish(profile);
  if (profile.table.records.empty()) {
    std::string skipped;
    for (const auto& [why, n] : profile.skipped)
      skipped += fmt::format("{}{} {}", skipped.empty() ? "" : ", ", n, why);
    return Status::InvalidArgument(fmt::format("{}: no AI Core / AI CPU kernel among its {} rows{}{}", origin,
                                               profile.rows, skipped.empty() ? "" : ": skipped ", skipped));
  }
  return profile;
}

}  // namespace npugap::analysis::perf
