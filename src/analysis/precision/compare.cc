#include "npugap/analysis/precision/compare.h"

#include <cmath>
#include <map>

#include "compare_pipeline.h"

#include <fmt/format.h>

#include "npugap/exec/compare.h"

namespace npugap::analysis::precision {

namespace {

bool IsFloat(const ir::Tensor& t) {
  return t.defined() && (t.dtype() == ir::DType::kFloat32 || t.dtype() == ir::DType::kFloat64 ||
                         t.dtype() == ir::DType::kFloat16 || t.dtype() == ir::DType::kBFloat16);
}

std::vector<NonFiniteInput> FindNonFiniteInputs(const ir::Graph& g,
                                                const std::vector<std::vector<ir::Tensor>>& sets) {
  std::vector<NonFiniteInput> found;
  for (size_t s = 0; s < sets.size(); ++s) {
    for (size_t i = 0; i < sets[s].size() && i < g.inputs.size(); ++i) {
      const ir::Tensor& t = sets[s][i];
      if (!IsFloat(t)) continue;
      NonFiniteInput f{g.values[static_cast<size_t>(g.inputs[i])].name, static_cast<int>(s), 0, 0};
      for (int64_t k = 0; k < t.numel(); ++k) {
        const double v = exec::ElementAsDouble(t, k);
        if (std::isnan(v))
          ++f.nan;
        else if (std::isinf(v))
          ++f.inf;
      }
      if (f.nan + f.inf > 0) found.push_back(std::move(f));
    }
  }
  return found;
}

}  // namespace

Expected<ReferenceTrace> TraceReference(const ir::Model& model, const TracedRun& reference,
                                        const std::vector<std::vector<ir::Tensor>>& input_sets) {
  ReferenceTrace trace;
  for (size_t s = 0; s < input_sets.size(); ++s) {
    NPUGAP_ASSIGN_OR_RETURN(auto values, TraceOneSet(model, reference, input_sets[s], s));
    trace.samples.push_back(std::move(values));
  }
  return trace;
}

Expected<std::unordered_map<int, ir::Tensor>> TraceOneSet(const ir::Model& model, const TracedRun& reference,
                                                          const std::vector<ir::Tensor>& inputs, size_t set) {
  std::unordered_map<int, ir::Tensor> values;
  auto keep = [&](const ir::Node& node, const std::vector<ir::Tensor>& outputs,
                  const std::vector<numerics::RoundStats>&) {
    for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i) {
      if (node.outputs[i] != ir::kNoValue && IsFloat(outputs[i])) values[node.outputs[i]] = outputs[i];
    }
  };
  auto out = reference(inputs, keep);
  if (!out.ok())
    return out.status().WithContext(fmt::format("{}: reference run, sample {}", model.path, set));
  return values;
}

namespace {

// Runs the target on one input set; each float output with a reference goes to the pipeline.
// `consume`: the reference tensor is moved out of `ref` (freed once compared).
Expected<std::vector<ir::Tensor>> RunTargetSet(const ir::Model& model, const TracedRun& target,
                                               const std::vector<ir::Tensor>& inputs, size_t set,
                                               std::unordered_map<int, ir::Tensor>& ref, bool consume,
                                               MetricsPipeline& pipeline) {
  auto compare = [&](const ir::Node& node, const std::vector<ir::Tensor>& outputs,
                     const std::vector<numerics::RoundStats>& stats) {
    for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i) {
      const int v = node.outputs[i];
      if (v == ir::kNoValue || !IsFloat(outputs[i])) continue;
      const auto it = ref.find(v);
      if (it == ref.end()) continue;
      MetricsPipeline::Pair pair{v, node.name, outputs[i], consume ? std::move(it->second) : it->second,
                                 i < stats.size() ? stats[i] : numerics::RoundStats{}};
      if (consume) ref.erase(it);
      pipeline.Push(std::move(pair));
    }
  };
  auto out = target(inputs, compare);
  if (!out.ok()) return out.status().WithContext(fmt::format("{}: target run, sample {}", model.path, set));
  return out;
}

// The graph outputs of one set's reference (what top-1 / top-5 need after the set is compared).
std::unordered_map<int, ir::Tensor> GraphOutputs(const ir::Graph& g,
                                                 const std::unordered_map<int, ir::Tensor>& values) {
  std::unordered_map<int, ir::Tensor> kept;
  for (int v : g.outputs) {
    if (auto it = values.find(v); it != values.end()) kept.emplace(v, it->second);
  }
  return kept;
}

Expected<PrecisionComparison> Summarize(const ir::Model& model, MetricsPipeline& pipeline,
                                        const ReferenceTrace& outputs,
                                        const std::vector<std::vector<ir::Tensor>>& target_outputs,
                                        const std::vector<std::vector<ir::Tensor>>& input_sets,
                                        const CompareSettings& settings) {
  NPUGAP_RETURN_IF_ERROR(pipeline.Drain().WithContext(model.path));
  const ir::Graph& g = model.graph;
  const auto& acc = pipeline.accumulators();
  PrecisionComparison result;
  result.input_sets = static_cast<int>(input_sets.size());
  for (const auto& set : input_sets) result.samples += RowsPerInputSet(set);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const ir::Node& node = g.nodes[n];
    for (int v : node.outputs) {
      const auto it = acc.find(v);
      if (v == ir::kNoValue || it == acc.end()) continue;
      const ir::Value& value = g.values[static_cast<size_t>(v)];
      TensorComparison c{value.name,
                         node.name,
                         node.op_type,
                         static_cast<int>(n),
                         value.is_graph_output,
                         it->second.shape,
                         {},
                         it->second.errors.Finish(),
                         true};
      c.pass = Passes(c.metrics, settings.thresholds);
      if (!c.pass && !result.first_failing) result.first_failing = result.tensors.size();
      result.tensors.push_back(std::move(c));
    }
  }
  for (int out : g.outputs) {
    for (size_t i = 0; i < result.tensors.size(); ++i) {
      if (result.tensors[i].name == g.values[static_cast<size_t>(out)].name) {
        result.outputs.push_back(i);
        if (!result.tensors[i].pass) result.outputs_pass = false;
      }
    }
  }
  NPUGAP_ASSIGN_OR_RETURN(result.classification,
                          ScoreClassOutputs(g, outputs, target_outputs, settings.labels));
  result.non_finite_inputs = FindNonFiniteInputs(g, input_sets);
  if (!target_outputs.empty()) result.first_sample_outputs = target_outputs[0];
  return result;
}

}  // namespace

Expected<PrecisionComparison> CompareWithReference(const ir::Model& model, const ReferenceTrace& reference,
                                                   const TracedRun& target,
                                                   const std::vector<std::vector<ir::Tensor>>& input_sets,
                                                   const CompareSettings& settings) {
  if (reference.samples.size() != input_sets.size()) {
    return Status::Internal(
        fmt::format("{} reference samples for {} input sets", reference.samples.size(), input_sets.size()));
  }
  MetricsPipeline pipeline(model.graph);
  std::vector<std::vector<ir::Tensor>> target_outputs;
  for (size_t s = 0; s < input_sets.size(); ++s) {
    // The trace is kept for the next plan: compare against handles to its tensors (no copies).
    auto ref = reference.samples[s];
    NPUGAP_ASSIGN_OR_RETURN(auto out, RunTargetSet(model, target, input_sets[s], s, ref, false, pipeline));
    target_outputs.push_back(std::move(out));
  }
  return Summarize(model, pipeline, reference, target_outputs, input_sets, settings);
}

Expected<PrecisionComparison> CompareStreamed(const ir::Model& model, const TracedRun& reference,
                                              const TracedRun& target,
                                              const std::vector<std::vector<ir::Tensor>>& input_sets,
                                              const CompareSettings& settings) {
  MetricsPipeline pipeline(model.graph);
  ReferenceTrace outputs;
  std::vector<std::vector<ir::Tensor>> target_outputs;
  for (size_t s = 0; s < input_sets.size(); ++s) {
    NPUGAP_ASSIGN_OR_RETURN(auto ref, TraceOneSet(model, reference, input_sets[s], s));
    outputs.samples.push_back(GraphOutputs(model.graph, ref));
    NPUGAP_ASSIGN_OR_RETURN(auto out, RunTargetSet(model, target, input_sets[s], s, ref, true, pipeline));
    ref.clear();  // tensors the target did not produce
    target_outputs.push_back(std::move(out));
  }
  return Summarize(model, pipeline, outputs, target_outputs, input_sets, settings);
}

}  // namespace npugap::analysis::precision
