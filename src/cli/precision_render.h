// Rendering of a precision comparison: msprobe-layout CSV, JSON, text. No computation here: every
// number comes from the analysis structs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npugap/analysis/precision/compare.h"
#include "npugap/analysis/precision/suggest_keep.h"

namespace npugap::cli {

struct PrecisionReportHeader {
  std::string model, target, mode, reference;
  analysis::precision::Thresholds thresholds;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // analysis::precision::HostRunNotes of the plan
};

// msprobe's compare_result columns (mindstudio-probe msprobe/core/common/const.py
// COMPARE_RESULT_HEADER), then npugap's: Node, Op Type, RMSE, Overflow Count, Flushed Count.
std::string PrecisionCsv(const analysis::precision::PrecisionComparison& c,
                         const std::string& reference_dtype);

nlohmann::json PrecisionJson(const PrecisionReportHeader& h,
                             const analysis::precision::PrecisionComparison& c,
                             const analysis::precision::KeepSuggestion* keep, double goal_cosine);

std::string PrecisionText(const PrecisionReportHeader& h, const analysis::precision::PrecisionComparison& c,
                          const analysis::precision::KeepSuggestion* keep, double goal_cosine);

}  // namespace npugap::cli
