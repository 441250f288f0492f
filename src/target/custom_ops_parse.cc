// compiler.custom_ops: the custom-op plugins installed with CANN, which make ATC accept ops of a
// non-standard domain (or op types the ONNX parser does not know). docs/targets.md gives the schema.
#include <fmt/format.h>

#include <set>
#include <utility>

#include "custom_ops_parse.h"

namespace npugap::target::internal {
namespace {

using nlohmann::json;

std::string ReadName(const ProfileReader& r, const json& parent, const std::string& path) {
  std::string name = r.ReadString(parent, path);
  if (name.empty()) r.Fail(path, "empty");
  if (name.find_first_of(" \t\n\r") != std::string::npos)
    r.Fail(path, fmt::format("'{}' contains whitespace", name));
  return name;
}

}  // namespace

std::vector<CustomOpPlugin> ReadCustomOps(ProfileReader& r, const json& compiler) {
  const auto it = compiler.find("custom_ops");
  if (it == compiler.end() || it->is_null()) return {};  // optional: most installations have none
  if (!it->is_array()) r.Fail("compiler.custom_ops", "expected an array of plugin objects");
  std::vector<CustomOpPlugin> plugins;
  std::set<std::pair<std::string, std::string>> seen;  // (domain, op type): each declared once
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string path = fmt::format("compiler.custom_ops[{}]", i);
    const json& entry = (*it)[i];
    if (!entry.is_object()) r.Fail(path, "expected an object with domain, op_types, engine");
    r.WarnUnknownKeys(entry, path, {"domain", "op_types", "engine", "note"});
    CustomOpPlugin p;
    // ReadString looks up the last dotted component of the path, so the keys go after a '.'.
    p.domain = ReadName(r, entry, path + ".domain");
    if (p.domain == "ai.onnx") {
      // An unknown op type of the default domain fails the ONNX checker when npugap imports the
      // model, and a known one has npugap's own rule, so such a declaration could never apply.
      r.Fail(
          path + ".domain",
          fmt::format("'{}' is the standard ONNX domain; custom ops need a domain of their own", p.domain));
    }
    const auto types = entry.find("op_types");
    if (types == entry.end()) r.Fail(path + ".op_types", "missing");
    if (!types->is_array() || types->empty())
      r.Fail(path + ".op_types", "expected a non-empty array of op types");
    for (size_t k = 0; k < types->size(); ++k) {
      const std::string type_path = fmt::format("{}.op_types[{}]", path, k);
      if (!(*types)[k].is_string()) r.Fail(type_path, "expected a string");
      const std::string type = (*types)[k].get<std::string>();
      if (type.empty()) r.Fail(type_path, "empty");
      if (!seen.emplace(p.domain, type).second) {
        r.Fail(type_path, fmt::format("'{}' of domain '{}' is declared twice", type, p.domain));
      }
      p.op_types.push_back(type);
    }
    p.engine = r.ReadString(entry, path + ".engine");
    if (p.engine != "aicore" && p.engine != "aicpu") {
      r.Fail(path + ".engine", fmt::format("'{}' is not one of aicore, aicpu", p.engine));
    }
    if (const auto note = entry.find("note"); note != entry.end() && !note->is_string()) {
      r.Fail(path + ".note", "expected a string");
    }
    plugins.push_back(std::move(p));
  }
  return plugins;
}

}  // namespace npugap::target::internal
