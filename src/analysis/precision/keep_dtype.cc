// ATC's --keep_dtype file (ascend-facts §3.3): one line per op, either a node name or
// `OpType::<type>` with an Ascend IR (or ONNX) op type. A line naming neither a node of the model
// nor a known op type is a warning naming the line, not an error: ATC ignores it too.
#include <fstream>

#include <fmt/format.h>

#include "analysis/precision/internal.h"
#include "npugap/exec/op_table.h"

namespace npugap::analysis::precision::internal {
namespace {

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

Expected<KeepDtype> ReadKeepDtype(const std::string& path, const ir::Graph& graph, OpLists& lists,
                                  std::vector<std::string>& warnings) {
  std::ifstream in(path);
  if (!in) return Status::IoError(fmt::format("{}: cannot read the --keep_dtype file", path));
  std::set<std::string> node_names, op_types_in_model;
  for (const ir::Node& n : graph.nodes) {
    node_names.insert(n.name);
    op_types_in_model.insert(n.op_type);
  }
  constexpr std::string_view kOpTypePrefix = "OpType::";
  KeepDtype keep;
  std::string raw;
  for (int line_no = 1; std::getline(in, raw); ++line_no) {
    const std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with(kOpTypePrefix)) {
      const std::string type = line.substr(kOpTypePrefix.size());
      // An Ascend IR name maps back to its ONNX op type through the list data; ONNX names as is.
      const OpListEntry* e = lists.FindByAnyName(type);
      const std::string onnx = e ? e->onnx : type;
      if (!e && !exec::OpTable::Default().Knows("", onnx)) {
        warnings.push_back(
            fmt::format("{}:{}: '{}' names no known op type; line ignored", path, line_no, line));
        continue;
      }
      if (!op_types_in_model.count(onnx)) {
        warnings.push_back(fmt::format("{}:{}: '{}': the model has no {} node", path, line_no, line, onnx));
      }
      keep.op_types.insert(onnx);
      continue;
    }
    if (!node_names.count(line)) {
      warnings.push_back(
          fmt::format("{}:{}: '{}' names no node of the model; line ignored", path, line_no, line));
      continue;
    }
    keep.nodes.insert(line);
  }
  return keep;
}

}  // namespace npugap::analysis::precision::internal
