// ATC's --fusion_switch_file (ascend-facts §3.4): every graph-fusion and UB-fusion pass is on by
// default and the file turns passes off (or back on). Two formats exist: one "PassName:off" per
// line, or JSON {"Switch":{"GraphFusion":{"ALL":"off","X":"on"},"UBFusion":{...}}}.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npugap/analysis/perf/lower/lower.h"

namespace npugap::analysis::perf {
namespace {

Expected<bool> ParseOnOff(std::string v, const std::string& where) {
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "on") return true;
  if (v == "off") return false;
  return Status::InvalidArgument(fmt::format("{}: '{}' is neither on nor off", where, v));
}

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool Known(const std::string& pass) {
  for (const auto& [name, group] : FusionPassNames()) {
    if (name == pass) return true;
  }
  return false;
}

void WarnUnknown(FusionSwitches& sw, const std::string& pass, const std::string& origin) {
  if (!Known(pass)) {
    sw.warnings.push_back(
        fmt::format("{}: fusion pass '{}' is not one npugap models; ignored", origin, pass));
  }
}

}  // namespace

bool FusionSwitches::Enabled(const std::string& pass, const std::string& group) const {
  if (auto it = passes.find(pass); it != passes.end()) return it->second;
  if (auto it = all.find(group); it != all.end()) return it->second;
  return true;
}

Expected<FusionSwitches> ParseFusionSwitches(const std::string& text, const std::string& origin) {
  FusionSwitches sw;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      return Status::InvalidArgument(fmt::format("{}: not valid JSON: {}", origin, e.what()));
    }
    if (!j.contains("Switch") || !j["Switch"].is_object()) {
      return Status::InvalidArgument(
          fmt::format("{}: expected {{\"Switch\": {{\"GraphFusion\": ..., "
                      "\"UBFusion\": ...}}}}",
                      origin));
    }
    for (const auto& [group, passes] : j["Switch"].items()) {
      if (group != "GraphFusion" && group != "UBFusion") {
        return Status::InvalidArgument(
            fmt::format("{}: Switch.{}: unknown group (expected GraphFusion or UBFusion)", origin, group));
      }
      if (!passes.is_object()) {
        return Status::InvalidArgument(fmt::format("{}: Switch.{}: expected an object", origin, group));
      }
      for (const auto& [name, value] : passes.items()) {
        const std::string where = fmt::format("{}: Switch.{}.{}", origin, group, name);
        if (!value.is_string()) return Status::InvalidArgument(where + ": expected \"on\" or \"off\"");
        NPUGAP_ASSIGN_OR_RETURN(bool on, ParseOnOff(value.get<std::string>(), where));
        if (name == "ALL") {
          sw.all[group] = on;
        } else {
          sw.passes[name] = on;
          WarnUnknown(sw, name, origin);
        }
      }
    }
    return sw;
  }
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#') continue;
    const auto colon = t.find(':');
    const std::string where = fmt::format("{}:{}", origin, number);
    if (colon == std::string::npos || colon == 0) {
      return Status::InvalidArgument(
          fmt::format("{}: expected 'PassName:off' or 'PassName:on', got '{}'", where, t));
    }
    const std::string name = Trim(t.substr(0, colon));
    NPUGAP_ASSIGN_OR_RETURN(bool on, ParseOnOff(Trim(t.substr(colon + 1)), where));
    sw.passes[name] = on;
    WarnUnknown(sw, name, origin);
  }
  return sw;
}

Expected<FusionSwitches> LoadFusionSwitchFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::IoError(fmt::format("{}: cannot open the fusion switch file", path));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ParseFusionSwitches(ss.str(), path);
}

}  // namespace npugap::analysis::perf
