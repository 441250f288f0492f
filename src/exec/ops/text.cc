// Text ops: StringNormalizer and TfIdfVectorizer (ai.onnx opsets 9/10+).
#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>

#include "npugap/exec/op_table.h"

namespace npugap::exec {
namespace {

std::string ChangeCase(std::string s, const std::string& action) {
  if (action == "LOWER") {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  } else if (action == "UPPER") {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

// Removes stopwords, then changes case. Input [C] or [1, C]; when every word is removed the
// output is a single empty string (shape [1] or [1, 1]), as the ONNX reference does.
Status StringNormalizerKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::kString) return ctx.UnsupportedDType(x.dtype());
  if (!(x.rank() == 1 || (x.rank() == 2 && x.dim(0) == 1))) return ctx.Error("input must be [C] or [1, C]");
  const std::string action = ctx.node.GetString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    return ctx.Error("case_change_action '" + action + "' is not NONE, LOWER or UPPER");
  }
  const bool case_sensitive = ctx.node.GetInt("is_case_sensitive", 0) != 0;
  const auto* stop_attr = ctx.node.FindAttribute("stopwords");
  std::unordered_set<std::string> stopwords;
  if (stop_attr) {
    for (const auto& w : stop_attr->strings) stopwords.insert(case_sensitive ? w : ChangeCase(w, "LOWER"));
  }
  std::vector<std::string> kept;
  for (const auto& w : x.strings()) {
    if (stopwords.count(case_sensitive ? w : ChangeCase(w, "LOWER"))) continue;
    kept.push_back(ChangeCase(w, action));
  }
  if (kept.empty()) kept.emplace_back();
  Shape shape = x.rank() == 1 ? Shape{static_cast<int64_t>(kept.size())} : Shape{1, static_cast<int64_t>(kept.size())};
  Tensor out = Tensor::Empty(DType::kString, shape);
  out.strings() = std::move(kept);
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

// Counts n-grams (with up to max_skip_count skipped items between grams) from a pool and
// weighs them by mode TF / IDF / TFIDF.
Status TfIdfVectorizerKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t min_n = ctx.node.GetInt("min_gram_length", 1);
  const int64_t max_n = ctx.node.GetInt("max_gram_length", 1);
  const int64_t max_skip = ctx.node.GetInt("max_skip_count", 0);
  const std::string mode = ctx.node.GetString("mode", "TF");
  const auto counts = ctx.node.GetInts("ngram_counts");
  const auto indexes = ctx.node.GetInts("ngram_indexes");
  const auto weights = ctx.node.GetFloats("weights");
  if (min_n < 1 || max_n < min_n || max_skip < 0) return ctx.Error("bad gram lengths or skip count");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return ctx.Error("mode '" + mode + "' is not TF, IDF or TFIDF");
  if (x.rank() != 1 && x.rank() != 2) return ctx.Error("input must be [C] or [N, C]");
  const bool strings = x.dtype() == DType::kString;
  if (!strings && x.dtype() != DType::kInt32 && x.dtype() != DType::kInt64) return ctx.UnsupportedDType(x.dtype());

  // Every pool n-gram as a key of strings (ints printed) -> its ordinal.
  const auto* pool_strings = ctx.node.FindAttribute("pool_strings");
  const auto pool_ints = ctx.node.GetInts("pool_int64s");
  const size_t pool_size = pool_strings ? pool_strings->strings.size() : pool_ints.size();
  auto pool_item = [&](size_t i) { return pool_strings ? pool_strings->strings[i] : std::to_string(pool_ints[i]); };
  std::map<std::vector<std::string>, int64_t> grams;
  int64_t ordinal = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const auto n = static_cast<size_t>(k + 1);
    const auto begin = static_cast<size_t>(counts[k]);
    const size_t end = k + 1 < counts.size() ? static_cast<size_t>(counts[k + 1]) : pool_size;
    if (begin > end || end > pool_size || (end - begin) % n != 0) return ctx.Error("ngram_counts do not split the pool");
    for (size_t at = begin; at < end; at += n) {
      std::vector<std::string> key;
      for (size_t j = 0; j < n; ++j) key.push_back(pool_item(at + j));
      grams[key] = ordinal++;
    }
  }
  if (static_cast<int64_t>(indexes.size()) != ordinal) return ctx.Error("ngram_indexes size differs from the pool's n-gram count");
  const int64_t width = indexes.empty() ? 0 : *std::max_element(indexes.begin(), indexes.end()) + 1;
  const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
  const int64_t cols = x.dim(x.rank() - 1);
  NPUGAP_ASSIGN_OR_RETURN(Tensor out, Tensor::Zeros(DType::kFloat32, x.rank() == 2 ? Shape{rows, width} : Shape{width}));
  auto item = [&](int64_t r, int64_t c) -> std::string {
    const auto i = static_cast<size_t>(r * cols + c);
    if (strings) return x.strings()[i];
    return std::to_string(x.dtype() == DType::kInt32 ? x.data<int32_t>()[i] : x.data<int64_t>()[i]);
  };
  float* o = out.data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t start = 0; start < cols; ++start) {
      for (int64_t skip = 0; skip <= max_skip; ++skip) {
        std::vector<std::string> key;
        for (int64_t n = 1; n <= max_n; ++n) {
          const int64_t pos = start + (n - 1) * (skip + 1);
          if (pos >= cols) break;
          key.push_back(item(r, pos));
          if (n == 1 && skip > 0) continue;  // unigrams do not depend on the skip: count them once
          if (n < min_n) continue;
          auto it = grams.find(key);
          if (it != grams.end()) o[r * width + indexes[static_cast<size_t>(it->second)]] += 1.0f;
        }
      }
    }
  }
  if (mode != "TF") {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < ordinal; ++k) {
        float& v = o[r * width + indexes[static_cast<size_t>(k)]];
        const float w = weights.empty() ? 1.0f : weights[static_cast<size_t>(k)];
        v = mode == "IDF" ? (v > 0 ? w : 0.0f) : v * w;
      }
    }
  }
  ctx.outputs[0] = std::move(out);
  return Status::Ok();
}

constexpr OpRow kRows[] = {
    {"", "StringNormalizer", 10, 17, StringNormalizerKernel, &support::kUnsupported},
    {"", "TfIdfVectorizer", 9, 17, TfIdfVectorizerKernel, &support::kUnsupported},
};

}  // namespace

std::span<const OpRow> TextOps() { return kRows; }

}  // namespace npugap::exec
