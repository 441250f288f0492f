// The emulated-precision part of `npugap run`: --target, --precision-mode, --keep-dtype,
// --modify-mixlist, --overflow. With any of them the model runs under the precision plan
// (analysis/precision) instead of in plain FP32.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "npugap/analysis/precision/emulate.h"

namespace npugap::cli {

struct PrecisionRunFlags {
  std::string target;
  std::string mode;
  std::string keep_dtype;
  std::string modify_mixlist;
  std::string overflow;
  bool active() const {
    return !target.empty() || !mode.empty() || !keep_dtype.empty() || !modify_mixlist.empty() ||
           !overflow.empty();
  }
};
void AddPrecisionRunFlags(CLI::App& cmd, PrecisionRunFlags& flags);

struct EmulatedRun {
  std::shared_ptr<analysis::precision::EmulatedRunner> runner;
  nlohmann::json summary;  // target, mode, overflow, units, casts, warnings
};
Expected<EmulatedRun> PrepareEmulatedRun(const ir::Model& model, const PrecisionRunFlags& flags, int threads,
                                         bool fuse);

// Adds the run's rounding totals (over every node's outputs) to summary["rounding"].
nlohmann::json RoundingTotals(const numerics::RoundStats& s);

}  // namespace npugap::cli
