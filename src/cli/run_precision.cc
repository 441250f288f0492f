#include "cli/run_precision.h"

#include <fmt/format.h>

#include "npugap/numerics/cube_accumulator.h"
#include "npugap/target/target.h"

namespace npugap::cli {
namespace {

using analysis::precision::Unit;

const char* UnitName(Unit u) {
  switch (u) {
    case Unit::kCube:
      return "cube";
    case Unit::kVector:
      return "vector";
    case Unit::kAiCpu:
      return "aicpu";
    case Unit::kNone:
      return "none";
  }
  return "none";
}

}  // namespace

void AddPrecisionRunFlags(CLI::App& cmd, PrecisionRunFlags& flags) {
  cmd.add_option(
      "--target", flags.target,
      "emulate this target's numerics (a built-in name, npugap targets, or a profile .json; default " +
          std::string(target::kDefaultTarget) + " when another precision flag is given)");
  cmd.add_option(
      "--precision-mode", flags.mode,
      "ATC --precision_mode / --precision_mode_v2 value or uniform_<fmt> (default: the target's framework "
      "default, docs/precision.md)");
  cmd.add_option("--keep-dtype", flags.keep_dtype,
                 "ATC --keep_dtype file: node names or OpType::<type>, one a line");
  cmd.add_option("--modify-mixlist", flags.modify_mixlist, "ATC --modify_mixlist JSON");
  cmd.add_option("--overflow", flags.overflow, "ieee | saturation (default: the target's)");
  AddKernelNumericsFlags(cmd, flags.op_select_implmode, flags.cube_accumulator_bits);
}

void AddKernelNumericsFlags(CLI::App& cmd, std::string& implmode, int& accumulator_bits) {
  cmd.add_option("--op-select-implmode", implmode,
                 "ATC --op_select_implmode: high_performance (ATC's default) | high_precision");
  cmd.add_option("--cube-accumulator-bits", accumulator_bits,
                 fmt::format("model a finite cube accumulator with N fraction bits ({} to {}; default: off, "
                             "exact FP32 accumulation; slow reference loops)",
                             numerics::kMinAccumulatorBits, numerics::kMaxAccumulatorBits));
}

Status ApplyKernelNumericsFlags(const std::string& implmode, int accumulator_bits,
                                analysis::precision::PrecisionOptions& options) {
  if (!implmode.empty() && implmode != "high_precision" && implmode != "high_performance") {
    return Status::InvalidArgument(
        fmt::format("--op-select-implmode '{}': expected high_performance or high_precision", implmode));
  }
  options.op_select_implmode = implmode;
  if (accumulator_bits == -1) return Status::Ok();
  if (accumulator_bits < numerics::kMinAccumulatorBits || accumulator_bits > numerics::kMaxAccumulatorBits) {
    return Status::InvalidArgument(fmt::format("--cube-accumulator-bits {}: expected {} to {}",
                                               accumulator_bits, numerics::kMinAccumulatorBits,
                                               numerics::kMaxAccumulatorBits));
  }
  options.finite_accumulator = true;
  options.accumulator_fraction_bits = accumulator_bits;
  return Status::Ok();
}

nlohmann::json RoundingTotals(const numerics::RoundStats& s) {
  return {
      {"overflow", s.overflow}, {"inf_nan", s.inf_nan}, {"saturated", s.saturated}, {"flushed", s.flushed}};
}

Expected<EmulatedRun> PrepareEmulatedRun(const ir::Model& model, const PrecisionRunFlags& flags, int threads,
                                         bool fuse) {
  TargetOptions t;
  if (!flags.target.empty()) t.spec = flags.target;
  NPUGAP_ASSIGN_OR_RETURN(target::Target target, LoadTargetWithOptions(t));
  analysis::precision::PrecisionOptions o;
  o.mode = flags.mode;
  o.keep_dtype_file = flags.keep_dtype;
  o.modify_mixlist_file = flags.modify_mixlist;
  if (flags.overflow == "ieee") {
    o.overflow = numerics::Overflow::kIeee;
  } else if (flags.overflow == "saturation") {
    o.overflow = numerics::Overflow::kSaturation;
  } else if (!flags.overflow.empty()) {
    return Status::InvalidArgument(
        fmt::format("--overflow '{}': expected ieee or saturation", flags.overflow));
  }
  NPUGAP_RETURN_IF_ERROR(ApplyKernelNumericsFlags(flags.op_select_implmode, flags.cube_accumulator_bits, o));
  NPUGAP_ASSIGN_OR_RETURN(analysis::precision::PrecisionPlan plan,
                          analysis::precision::BuildPrecisionPlan(model, target, o));
  nlohmann::json s;
  s["target"] = target.name;
  s["precision_mode"] = plan.mode;
  s["overflow"] = plan.rounding.overflow == numerics::Overflow::kSaturation ? "saturation" : "ieee";
  s["op_select_implmode"] = o.op_select_implmode.empty() ? "high_performance" : o.op_select_implmode;
  s["cube_accumulator_bits"] =
      plan.finite_accumulator ? nlohmann::json(plan.accumulator_fraction_bits) : nullptr;
  std::map<std::string, int64_t> units;
  for (const auto& n : plan.nodes) ++units[UnitName(n.unit)];
  s["units"] = units;
  s["casts"] = plan.casts.size();
  s["warnings"] = plan.warnings;
  s["notes"] = analysis::precision::HostRunNotes(plan);
  s["fused"] = fuse;
  NPUGAP_ASSIGN_OR_RETURN(
      analysis::precision::EmulatedRunner runner,
      analysis::precision::EmulatedRunner::Create(model, std::move(plan), {threads, fuse}));
  return EmulatedRun{std::make_shared<analysis::precision::EmulatedRunner>(std::move(runner)), std::move(s)};
}

}  // namespace npugap::cli
