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
  std::string op_select_implmode;
  int cube_accumulator_bits = -1;  // -1: not given (exact FP32 accumulation)
  bool active() const {
    return !target.empty() || !mode.empty() || !keep_dtype.empty() || !modify_mixlist.empty() ||
           !overflow.empty() || !op_select_implmode.empty() || cube_accumulator_bits != -1;
  }
};
void AddPrecisionRunFlags(CLI::App& cmd, PrecisionRunFlags& flags);

// --op-select-implmode and --cube-accumulator-bits (shared by run, precision and analyze):
// adds their help to `cmd`, and checks and applies their values (accumulator_bits -1: not given).
void AddKernelNumericsFlags(CLI::App& cmd, std::string& implmode, int& accumulator_bits);
Status ApplyKernelNumericsFlags(const std::string& implmode, int accumulator_bits,
                                analysis::precision::PrecisionOptions& options);

struct EmulatedRun {
  std::shared_ptr<analysis::precision::EmulatedRunner> runner;
  nlohmann::json summary;  // target, mode, overflow, units, casts, warnings
};
Expected<EmulatedRun> PrepareEmulatedRun(const ir::Model& model, const PrecisionRunFlags& flags, int threads,
                                         bool fuse);

// Adds the run's rounding totals (over every node's outputs) to summary["rounding"].
nlohmann::json RoundingTotals(const numerics::RoundStats& s);

}  // namespace npugap::cli
