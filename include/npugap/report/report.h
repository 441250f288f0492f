// The report of `npugap analyze`: one struct per model x target, filled by the analyses
// (report/build.h) and rendered three ways (report/render.h: terminal text, JSON, HTML). The
// renderers only format what is here; every number, verdict and chart series is computed before.
// docs/report.md documents the JSON form of this struct and the verdict rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npugap::report {

// kNotAvailable: the analysis has not run (it has not landed, or its input was not given); the
// section then carries the reason and no numbers.
enum class Verdict { kOk, kWarning, kFail, kNotAvailable };
std::string_view VerdictName(Verdict v);  // "ok", "warning", "fail", "not_available"

// One of "the two or three numbers that matter": a value with its unit, plus the text a reader
// sees (formatted by the builder, so that renderers never compute).
struct Metric {
  std::string key;    // stable JSON key, e.g. "total_bytes"
  std::string label;  // "device memory needed"
  double value = 0;
  std::string unit;  // "bytes", "ms", "", "%"
  std::string text;  // "1.23 GiB"
};

// A plot. Line charts use numeric x; bar charts use `categories` (x[i] is then the index i).
enum class ChartKind { kLine, kBar };
std::string_view ChartKindName(ChartKind k);  // "line", "bar"

struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

// A labelled vertical (at x) or horizontal (at y) rule: the first failing layer, the device limit.
struct Marker {
  std::string label;
  double at = 0;
};

struct Chart {
  std::string id;  // HTML element id, e.g. "chart-memory-timeline"
  std::string title;
  ChartKind kind = ChartKind::kLine;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;  // bar charts: one label per x index
  std::vector<Series> series;
  std::vector<Marker> x_markers;
  std::vector<Marker> y_markers;
  bool log_x = false;      // rank counts 8 .. 16,384
  bool zero_based = true;  // false: the y axis starts near the data (cosine similarities near 1)
};

struct Section {
  std::string key;    // "compat", "precision", "memory", "perf", "comm"
  std::string title;  // "Compatibility"
  Verdict verdict = Verdict::kNotAvailable;
  std::string not_available;  // why, when verdict is kNotAvailable
  std::vector<Metric> metrics;
  std::string cause;                 // the first cause of a warning / failure; empty when ok
  std::string fix;                   // what to change; empty when ok
  std::vector<std::string> notes;    // parts of the section that are not available yet, caveats
  std::vector<std::string> details;  // further findings, one line each
  std::vector<Chart> charts;
};

// One line of the recommended configuration.
enum class SettingKind { kAtcFlag, kEnv, kBatch, kCommand };
std::string_view SettingKindName(SettingKind k);  // "atc_flag", "env", "batch", "command"

struct Setting {
  SettingKind kind = SettingKind::kEnv;
  std::string name;   // "--precision_mode_v2", "HCCL_BUFFSIZE", "batch", "atc"
  std::string value;  // "fp16", "200", "64", the command line
  std::string why;    // one line: the section and finding it comes from
};

struct ModelSummary {
  std::string path;
  int64_t nodes = 0;
  int64_t parameters = 0;    // float initializer elements
  int64_t weight_bytes = 0;  // initializer bytes as stored
  int64_t opset = 0;
};

struct RunConfig {
  std::string target;
  std::string target_description;
  std::string dev_target;  // empty when not given
  int64_t dev_batch = 0;   // the batch the dev-target prediction ran at (0: as batch)
  int64_t batch = 0;
  bool train = false;
  std::string optimizer;       // when train
  std::string precision_mode;  // as given (empty: the target's default)
  std::string cluster;         // empty: no communication section
  int ranks = 0;
  int samples = 0;
};

struct Report {
  std::string tool_version;
  ModelSummary model;
  RunConfig config;
  // Stable order: compat, precision, memory, perf, comm (see SectionKeys()).
  Section compat, precision, memory, perf, comm;
  std::vector<Setting> recommendations;
  std::vector<std::string> warnings;  // profile warnings, ignored inputs

  std::vector<const Section*> sections() const { return {&compat, &precision, &memory, &perf, &comm}; }
  const Section* FindSection(std::string_view key) const;
};

// The section keys in report order; also the names `--fail-on` accepts.
const std::vector<std::string>& SectionKeys();

// True when any section named in `keys` has verdict kFail (a CI gate).
bool AnyFailed(const Report& report, const std::vector<std::string>& keys);

}  // namespace npugap::report
