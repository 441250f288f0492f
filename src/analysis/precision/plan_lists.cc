// The mixed-precision op lists and the vector kernels' intermediate precision, read from the
// embedded data/precision/*.json, and the user's --modify_mixlist edits to the lists.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/precision/embedded.h"
#include "analysis/precision/internal.h"
#include "npugap/exec/op_table.h"

namespace npugap::analysis::precision::internal {
namespace {

using nlohmann::json;

Expected<json> EmbeddedJson(std::string_view name) {
  for (size_t i = 0; i < kNumEmbeddedPrecisionData; ++i) {
    if (name == kEmbeddedPrecisionData[i].name) {
      json j = json::parse(kEmbeddedPrecisionData[i].json, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded())
        return Status::Internal(fmt::format("data/precision/{}.json does not parse", name));
      return j;
    }
  }
  return Status::Internal(fmt::format("data/precision/{}.json is not embedded", name));
}

std::optional<ListKind> ParseListKind(std::string_view s) {
  if (s == "white") return ListKind::kWhite;
  if (s == "black") return ListKind::kBlack;
  if (s == "gray") return ListKind::kGray;
  return std::nullopt;
}

}  // namespace

std::string_view ListKindName(ListKind k) {
  switch (k) {
    case ListKind::kWhite:
      return "white";
    case ListKind::kBlack:
      return "black";
    case ListKind::kGray:
      return "gray";
  }
  return "gray";
}

std::pair<int, int> LineColumn(std::string_view text, size_t pos) {
  int line = 1, col = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

const OpListEntry* OpLists::Find(std::string_view onnx_op) const {
  for (const OpListEntry& e : ops) {
    if (e.onnx == onnx_op) return &e;
  }
  return nullptr;
}

OpListEntry* OpLists::FindByAnyName(std::string_view name) {
  for (OpListEntry& e : ops) {
    if (e.onnx == name || e.ascend == name) return &e;
  }
  return nullptr;
}

Expected<OpLists> BuiltinOpLists() {
  NPUGAP_ASSIGN_OR_RETURN(json j, EmbeddedJson("mixed_precision_lists"));
  OpLists lists;
  for (const json& e : j.at("ops")) {
    const auto kind = ParseListKind(e.at("list").get<std::string>());
    if (!kind)
      return Status::Internal("data/precision/mixed_precision_lists.json: bad list " + e.at("list").dump());
    lists.ops.push_back({e.at("onnx").get<std::string>(), e.at("ascend").get<std::string>(), *kind,
                         e.at("source").get<std::string>(), e.at("confidence").get<std::string>(), false});
  }
  return lists;
}

Expected<std::vector<VectorKernel>> BuiltinVectorKernels() {
  NPUGAP_ASSIGN_OR_RETURN(json j, EmbeddedJson("vector_kernels"));
  std::vector<VectorKernel> kernels;
  for (const json& e : j.at("kernels")) {
    kernels.push_back({e.at("onnx").get<std::string>(), e.at("high_performance").get<std::string>() == "low",
                       e.at("high_precision").get<std::string>() == "low",
                       e.at("source").get<std::string>()});
  }
  return kernels;
}

Expected<std::set<std::string>> BuiltinHighPerformanceFormulas() {
  NPUGAP_ASSIGN_OR_RETURN(json j, EmbeddedJson("vector_kernels"));
  const std::set<std::string> known = HighPerformanceFormulaOps();
  std::set<std::string> ops;
  for (const json& e : j.at("high_performance_formulas")) {
    const std::string op = e.at("onnx").get<std::string>();
    if (!known.count(op))
      return Status::Internal(fmt::format("vector_kernels.json: no high_performance formula for '{}'", op));
    ops.insert(op);
  }
  return ops;
}

Expected<std::vector<UniformKernel>> BuiltinUniformKernels() {
  NPUGAP_ASSIGN_OR_RETURN(json j, EmbeddedJson("vector_kernels"));
  std::vector<UniformKernel> kernels;
  for (const json& e : j.at("uniform_kernels")) {
    UniformKernel k;
    k.onnx = e.at("onnx").get<std::string>();
    const std::string variant = e.at("variant").get<std::string>();
    if (variant == "onednn_bf16") {
      k.variant = KernelVariant::kOneDnnBf16;
    } else if (variant == "mean_rounds_sum") {
      k.variant = KernelVariant::kMeanRoundsSum;
    } else if (variant == "batchnorm_fma") {
      k.variant = KernelVariant::kBatchNormFma;
    } else if (variant == "silu_chain") {
      k.variant = KernelVariant::kSiluChain;
    } else {
      return Status::Internal(
          fmt::format("vector_kernels.json: unknown uniform kernel variant '{}'", variant));
    }
    for (const json& f : e.at("formats")) {
      const std::optional<numerics::Format> format = numerics::ParseFormat(f.get<std::string>());
      if (!format) return Status::Internal(fmt::format("vector_kernels.json: unknown format {}", f.dump()));
      k.formats.push_back(*format);
    }
    k.source = e.at("source").get<std::string>();
    k.confidence = e.at("confidence").get<std::string>();
    if (k.source.empty() || k.confidence.empty())
      return Status::Internal(
          fmt::format("vector_kernels.json: uniform kernel '{}' has no source or confidence", k.onnx));
    kernels.push_back(std::move(k));
  }
  return kernels;
}

Status ApplyMixlist(const std::string& path, OpLists& lists, std::vector<std::string>& warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot read the --modify_mixlist file", path));
  std::stringstream buf;
  buf << in.rdbuf();
  return ApplyMixlistText(path, buf.str(), lists, warnings);
}

Status ApplyMixlistText(const std::string& path, const std::string& text, OpLists& lists,
                        std::vector<std::string>& warnings) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // byte is 1-based: the position of the character that broke the parse.
    const auto [line, col] = LineColumn(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    return Status::InvalidArgument(
        fmt::format("{}:{}:{}: --modify_mixlist JSON does not parse: {}", path, line, col, what));
  }
  if (!j.is_object())
    return Status::InvalidArgument(fmt::format("{}: --modify_mixlist must be a JSON object", path));
  for (const auto& [list_name, edits] : j.items()) {
    const std::string short_name =
        list_name.size() > 5 && list_name.ends_with("-list") ? list_name.substr(0, list_name.size() - 5) : "";
    const auto kind = ParseListKind(short_name);
    if (!kind) {
      return Status::InvalidArgument(
          fmt::format("{}: key '{}': expected black-list, white-list or gray-list", path, list_name));
    }
    if (!edits.is_object())
      return Status::InvalidArgument(fmt::format("{}: '{}' must be an object", path, list_name));
    for (const auto& [action, names] : edits.items()) {
      if (action != "to-add" && action != "to-remove") {
        return Status::InvalidArgument(
            fmt::format("{}: '{}.{}': expected to-add or to-remove", path, list_name, action));
      }
      if (!names.is_array())
        return Status::InvalidArgument(
            fmt::format("{}: '{}.{}' must be a list of op types", path, list_name, action));
      for (const json& n : names) {
        if (!n.is_string())
          return Status::InvalidArgument(
              fmt::format("{}: '{}.{}': {} is not an op type name", path, list_name, action, n.dump()));
        const std::string name = n.get<std::string>();
        OpListEntry* e = lists.FindByAnyName(name);
        if (!e) {
          if (!exec::OpTable::Default().Knows("", name)) {
            warnings.push_back(fmt::format("{}: '{}.{}': '{}' names no ONNX or known Ascend op type; ignored",
                                           path, list_name, action, name));
            continue;
          }
          lists.ops.push_back({name, name, ListKind::kGray, "user --modify_mixlist", "config", true});
          e = &lists.ops.back();
        }
        if (action == "to-add") {
          e->list = *kind;
          e->from_mixlist = true;
          e->source = fmt::format("{} ({}: {})", path, list_name, action);
        } else if (e->list == *kind) {
          // Removed from its list: the op then follows its inputs (ATC's gray behaviour).
          e->list = ListKind::kGray;
          e->from_mixlist = true;
          e->source = fmt::format("{} ({}: {})", path, list_name, action);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace npugap::analysis::precision::internal
