// Top-1 agreement, top-5 overlap and accuracy for outputs that look like class scores.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "npugap/analysis/precision/compare.h"
#include "npugap/exec/compare.h"

namespace npugap::analysis::precision {
namespace {

bool LooksLikeClassScores(const ir::Tensor& t) {
  return (t.dtype() == ir::DType::kFloat32 || t.dtype() == ir::DType::kFloat64 ||
          t.dtype() == ir::DType::kFloat16 || t.dtype() == ir::DType::kBFloat16) &&
         t.rank() == 2 && t.dim(1) >= 2 && t.dim(0) >= 1;
}

// Indices of the k largest scores of one row, largest first; NaN ranks below everything, ties by
// lower index (as torch.topk and numpy argsort(-x, kind='stable') do for distinct values).
std::vector<int64_t> TopK(const ir::Tensor& t, int64_t row, int k) {
  const int64_t c = t.dim(1);
  std::vector<double> v(static_cast<size_t>(c));
  for (int64_t j = 0; j < c; ++j) {
    const double x = exec::ElementAsDouble(t, row * c + j);
    v[static_cast<size_t>(j)] = std::isnan(x) ? -INFINITY : x;
  }
  std::vector<int64_t> idx(static_cast<size_t>(c));
  std::iota(idx.begin(), idx.end(), 0);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int64_t a, int64_t b) {
    const double va = v[static_cast<size_t>(a)], vb = v[static_cast<size_t>(b)];
    return va > vb || (va == vb && a < b);
  });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

}  // namespace

Expected<std::vector<ClassScores>> ScoreClassOutputs(
    const ir::Graph& graph, const ReferenceTrace& reference,
    const std::vector<std::vector<ir::Tensor>>& target_outputs, const std::vector<int64_t>& labels) {
  std::vector<ClassScores> scores;
  bool labels_used = false;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const int v = graph.outputs[o];
    ClassScores cs;
    cs.output = graph.values[static_cast<size_t>(v)].name;
    int64_t top1 = 0, ref_correct = 0, tgt_correct = 0;
    double overlap = 0;
    bool eligible = !target_outputs.empty();
    for (size_t s = 0; s < target_outputs.size() && eligible; ++s) {
      const auto it = reference.samples[s].find(v);
      if (o >= target_outputs[s].size() || it == reference.samples[s].end()) {
        eligible = false;
        break;
      }
      const ir::Tensor& t = target_outputs[s][o];
      const ir::Tensor& r = it->second;
      if (!LooksLikeClassScores(t) || t.shape() != r.shape()) {
        eligible = false;
        break;
      }
      cs.classes = t.dim(1);
      cs.top_k = static_cast<int>(std::min<int64_t>(5, cs.classes));
      for (int64_t row = 0; row < t.dim(0); ++row) {
        const auto tk = TopK(t, row, cs.top_k), rk = TopK(r, row, cs.top_k);
        if (tk[0] == rk[0]) ++top1;
        int common = 0;
        for (int64_t a : tk) common += std::count(rk.begin(), rk.end(), a) > 0 ? 1 : 0;
        overlap += static_cast<double>(common) / cs.top_k;
        if (!labels_used && !labels.empty() && cs.rows + row < static_cast<int64_t>(labels.size())) {
          const int64_t label = labels[static_cast<size_t>(cs.rows + row)];
          if (rk[0] == label) ++ref_correct;
          if (tk[0] == label) ++tgt_correct;
        }
      }
      cs.rows += t.dim(0);
    }
    if (!eligible || cs.rows == 0) continue;
    cs.top1_agreement = static_cast<double>(top1) / static_cast<double>(cs.rows);
    cs.top5_overlap = overlap / static_cast<double>(cs.rows);
    if (!labels_used && !labels.empty()) {
      if (static_cast<int64_t>(labels.size()) != cs.rows) {
        return Status::InvalidArgument(fmt::format("--labels: {} labels, but output '{}' has {} rows",
                                                   labels.size(), cs.output, cs.rows));
      }
      for (int64_t l : labels) {
        if (l < 0 || l >= cs.classes) {
          return Status::InvalidArgument(fmt::format("--labels: label {} is outside output '{}''s {} classes",
                                                     l, cs.output, cs.classes));
        }
      }
      cs.reference_accuracy = static_cast<double>(ref_correct) / static_cast<double>(cs.rows);
      cs.target_accuracy = static_cast<double>(tgt_correct) / static_cast<double>(cs.rows);
      labels_used = true;
    }
    scores.push_back(std::move(cs));
  }
  if (!labels.empty() && !labels_used) {
    return Status::InvalidArgument(
        "--labels: the model has no output that looks like class scores [rows, classes]");
  }
  return scores;
}

}  // namespace npugap::analysis::precision
