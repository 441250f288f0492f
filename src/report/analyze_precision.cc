// The precision section of `npugap analyze`: the same comparison `npugap precision` runs (plan for
// the precision mode, emulated target vs FP32 reference, msprobe's metrics per tensor), on random
// input sets or the --inputs set. The keep-FP32 search is not run here: it costs up to 48 further
// emulated runs (--max-runs), so the fix names the command that runs it.
#include <cmath>

#include <fmt/format.h>

#include "analyze_internal.h"
#include "npugap/analysis/precision/compare.h"
#include "npugap/analysis/precision/plan.h"

namespace npugap::report::internal {
namespace {

namespace pr = analysis::precision;

std::string SuggestCommand(const ir::Model& model, const target::Target& target, const AnalyzeOptions& o,
                           const std::string& mode) {
  std::string cmd = fmt::format("npugap precision {} --target {}", model.path, target.name);
  if (o.batch > 0) cmd += fmt::format(" --batch {}", o.batch);
  cmd += " --precision-mode " + mode;
  if (!o.op_select_implmode.empty()) cmd += " --op-select-implmode " + o.op_select_implmode;
  if (o.inputs_given) {
    cmd += " --inputs ...";
  } else {
    cmd += fmt::format(" --samples {}", o.samples);
    if (o.seed != 0) cmd += fmt::format(" --seed {}", o.seed);
  }
  return cmd + " --suggest-keep --write-keep-dtype keep_dtype.cfg";
}

Expected<PrecisionFacts> PrecisionFactsOf(const ir::Model& model, const target::Target& target,
                                          const AnalyzeOptions& o) {
  pr::PrecisionOptions popts;
  popts.mode = o.precision_mode;
  popts.op_select_implmode = o.op_select_implmode;
  NPUGAP_ASSIGN_OR_RETURN(pr::PrecisionPlan plan, pr::BuildPrecisionPlan(model, target, popts));
  // The same samples rule as `npugap precision --samples N` (whole batches, seeds seed, seed+1, ...).
  std::vector<std::vector<ir::Tensor>> sets;
  if (o.inputs_given) {
    sets.push_back(o.inputs);
  } else {
    NPUGAP_ASSIGN_OR_RETURN(sets, pr::RandomSampleSets(model.graph, o.seed, o.samples));
  }
  NPUGAP_ASSIGN_OR_RETURN(pr::TracedRun reference,
                          pr::MakeReferenceRun(model, pr::ReferencePrecision::kFP32, o.threads));
  const std::string mode = plan.mode;
  NPUGAP_ASSIGN_OR_RETURN(pr::TracedRun emulated, pr::MakeTargetRun(model, std::move(plan), o.threads));
  const pr::CompareSettings settings{pr::Thresholds{}, {}};
  NPUGAP_ASSIGN_OR_RETURN(pr::PrecisionComparison c,
                          pr::CompareStreamed(model, reference, emulated, sets, settings));
  PrecisionFacts f;
  f.mode = mode;
  f.samples = static_cast<int>(c.samples);
  f.batches = c.input_sets;
  f.cosine_threshold = settings.thresholds.cosine;
  f.threshold_source =
      "msprobe's default cosine threshold, as npugap precision (analysis/precision/metrics.h)";
  int not_available = 0;
  for (const auto& t : c.tensors) {
    // msprobe's "N/A" cosine (exactly one side all zero) has no point on the curve.
    if (std::isnan(t.metrics.cosine)) {
      ++not_available;
      continue;
    }
    f.layers.push_back(
        {t.node.empty() ? t.name : t.node, t.op_type, t.metrics.cosine, t.metrics.max_abs_err});
  }
  if (not_available > 0)
    f.notes.push_back(
        fmt::format("{} tensors have cosine N/A (one side all zero) and are not plotted", not_available));
  bool first_output = true;
  for (size_t i : c.outputs) {
    const auto& m = c.tensors[i].metrics;
    const double cosine = std::isnan(m.cosine) ? 0.0 : m.cosine;
    f.output_cosine = first_output ? cosine : std::min(f.output_cosine, cosine);
    f.output_max_abs_error = std::max(f.output_max_abs_error, m.max_abs_err);
    first_output = false;
  }
  f.suggest_command = SuggestCommand(model, target, o, mode);
  return f;
}

}  // namespace

Section RunPrecision(const ir::Model& model, const target::Target& target, const AnalyzeOptions& o,
                     std::vector<Setting>* settings) {
  auto facts = PrecisionFactsOf(model, target, o);
  if (!facts.ok()) return NotAvailableSection("precision", "Precision", facts.status().message());
  return PrecisionSection(*facts, settings);
}

}  // namespace npugap::report::internal
