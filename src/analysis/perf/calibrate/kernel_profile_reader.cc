// The one entry point for measured kernels (kernel_profile_reader.h): the header tells the format,
// the format's reader makes the records, and the dtype labels are read as the format needs.
#include "npugap/analysis/perf/calibrate/kernel_profile_reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "kernel_msprof_reader.h"
#include "kernel_reader_csv.h"

namespace npugap::analysis::perf {
namespace {

// Which reader takes `text`, from the names in its first non-empty line: op_summary's "Op Name",
// else kernel_details' "Name"; any other header goes to the calibration CSV reader, whose error
// names the calibration columns it lacks.
Expected<ProfileFormat> DetectFormat(std::string_view text, const std::string& origin) {
  LineReader lines(text);
  std::string_view line;
  if (!lines.Next(line)) return ProfileFormat::kCalibrationCsv;  // empty: the calibration reader says so
  std::vector<CsvField> fields;
  if (Status s = SplitCsvLine(line, fields); !s.ok()) {
    return s.WithContext(fmt::format("{}:{}", origin, lines.number()));
  }
  const auto has = [&](std::string_view name) {
    return std::any_of(fields.begin(), fields.end(), [&](const CsvField& f) { return f.text == name; });
  };
  if (has(kMsprofNameColumn)) return ProfileFormat::kMsprofOpSummary;
  if (has(kKernelDetailsNameColumn)) return ProfileFormat::kTorchNpuKernelDetails;
  return ProfileFormat::kCalibrationCsv;
}

}  // namespace

std::string_view ProfileFormatName(ProfileFormat format) {
  switch (format) {
    case ProfileFormat::kCalibrationCsv:
      return "calibration CSV";
    case ProfileFormat::kMsprofOpSummary:
      return "msprof op_summary";
    case ProfileFormat::kTorchNpuKernelDetails:
      return "torch_npu kernel_details";
  }
  return "?";
}

DtypeLabels DefaultDtypeLabels(ProfileFormat format) {
  return format == ProfileFormat::kCalibrationCsv ? DtypeLabels::kTypeIdShifted : DtypeLabels::kAsWritten;
}

std::string_view DtypeLabelsName(DtypeLabels labels) {
  return labels == DtypeLabels::kTypeIdShifted ? "typeid-shifted" : "as-written";
}

Expected<KernelProfile> ParseKernelProfile(std::string_view text, const std::string& origin,
                                           std::optional<DtypeLabels> dtype_labels) {
  // A byte-order mark, as a spreadsheet saving the file writes it.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  NPUGAP_ASSIGN_OR_RETURN(const ProfileFormat format, DetectFormat(text, origin));
  KernelProfile profile;
  if (format == ProfileFormat::kCalibrationCsv) {
    NPUGAP_ASSIGN_OR_RETURN(profile.table, ParseKernelCsv(text, origin));
    profile.rows = static_cast<int>(profile.table.records.size());
  } else {
    NPUGAP_ASSIGN_OR_RETURN(profile, ParseProfilerCsv(text, origin, format));
  }
  profile.format = format;
  profile.dtype_labels = dtype_labels.value_or(DefaultDtypeLabels(format));
  NPUGAP_RETURN_IF_ERROR(ApplyDtypeLabels(profile.table, profile.dtype_labels, origin));
  return profile;
}

Expected<KernelProfile> ReadKernelProfile(const std::string& path, std::optional<DtypeLabels> dtype_labels) {
  NPUGAP_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(path));
  return ParseKernelProfile(text, path, dtype_labels);
}

}  // namespace npugap::analysis::perf
