#include "npugap/analysis/precision/compare.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "npugap/exec/compare.h"

namespace npugap::analysis::precision {

// compare_classify.cc
Expected<std::vector<ClassScores>> ScoreClassOutputs(
    const ir::Graph& graph, const ReferenceTrace& reference,
    const std::vector<std::vector<ir::Tensor>>& target_outputs, const std::vector<int64_t>& labels);

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
    std::unordered_map<int, ir::Tensor> values;
    auto keep = [&](const ir::Node& node, const std::vector<ir::Tensor>& outputs,
                    const std::vector<numerics::RoundStats>&) {
      for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i) {
        if (node.outputs[i] != ir::kNoValue && IsFloat(outputs[i])) values[node.outputs[i]] = outputs[i];
      }
    };
    auto out = reference(input_sets[s], keep);
    if (!out.ok())
      return out.status().WithContext(fmt::format("{}: reference run, sample {}", model.path, s));
    trace.samples.push_back(std::move(values));
  }
  return trace;
}

Expected<PrecisionComparison> CompareWithReference(const ir::Model& model, const ReferenceTrace& reference,
                                                   const TracedRun& target,
                                                   const std::vector<std::vector<ir::Tensor>>& input_sets,
                                                   const CompareSettings& settings) {
  if (reference.samples.size() != input_sets.size()) {
    return Status::Internal(
        fmt::format("{} reference samples for {} input sets", reference.samples.size(), input_sets.size()));
  }
  const ir::Graph& g = model.graph;
  std::map<int, ErrorAccumulator> acc;
  std::vector<std::vector<ir::Tensor>> target_outputs;
  for (size_t s = 0; s < input_sets.size(); ++s) {
    const auto& ref = reference.samples[s];
    Status failure;
    auto compare = [&](const ir::Node& node, const std::vector<ir::Tensor>& outputs,
                       const std::vector<numerics::RoundStats>& stats) {
      for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i) {
        const int v = node.outputs[i];
        if (v == ir::kNoValue || !IsFloat(outputs[i])) continue;
        const auto it = ref.find(v);
        if (it == ref.end()) continue;
        ErrorAccumulator& a = acc[v];
        if (Status st = a.Add(outputs[i], it->second); !st.ok() && failure.ok()) {
          failure = st.WithContext(
              fmt::format("node '{}' output '{}'", node.name, g.values[static_cast<size_t>(v)].name));
        }
        if (i < stats.size()) a.AddRoundStats(stats[i]);
      }
    };
    auto out = target(input_sets[s], compare);
    if (!out.ok()) return out.status().WithContext(fmt::format("{}: target run, sample {}", model.path, s));
    if (!failure.ok()) return failure.WithContext(model.path);
    target_outputs.push_back(std::move(out).value());
  }

  PrecisionComparison result;
  result.samples = static_cast<int>(input_sets.size());
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const ir::Node& node = g.nodes[n];
    for (int v : node.outputs) {
      const auto it = acc.find(v);
      if (v == ir::kNoValue || it == acc.end()) continue;
      const ir::Value& value = g.values[static_cast<size_t>(v)];
      TensorComparison c{
          value.name, node.name,           node.op_type, static_cast<int>(n), value.is_graph_output, {},
          {},         it->second.Finish(), true};
      if (!reference.samples.empty()) {
        if (auto r = reference.samples[0].find(v); r != reference.samples[0].end())
          c.shape = r->second.shape();
      }
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
                          ScoreClassOutputs(g, reference, target_outputs, settings.labels));
  result.non_finite_inputs = FindNonFiniteInputs(g, input_sets);
  if (!target_outputs.empty()) result.first_sample_outputs = target_outputs[0];
  return result;
}

}  // namespace npugap::analysis::precision
