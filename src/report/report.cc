#include "npugap/report/report.h"

#include <algorithm>

namespace npugap::report {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kOk:
      return "ok";
    case Verdict::kWarning:
      return "warning";
    case Verdict::kFail:
      return "fail";
    case Verdict::kNotAvailable:
      return "not_available";
  }
  return "not_available";
}

std::string_view ChartKindName(ChartKind k) { return k == ChartKind::kBar ? "bar" : "line"; }

std::string_view SettingKindName(SettingKind k) {
  switch (k) {
    case SettingKind::kAtcFlag:
      return "atc_flag";
    case SettingKind::kEnv:
      return "env";
    case SettingKind::kBatch:
      return "batch";
    case SettingKind::kCommand:
      return "command";
  }
  return "env";
}

const Section* Report::FindSection(std::string_view key) const {
  for (const Section* s : sections()) {
    if (s->key == key) return s;
  }
  return nullptr;
}

const std::vector<std::string>& SectionKeys() {
  static const std::vector<std::string> keys = {"compat", "precision", "memory", "perf", "comm"};
  return keys;
}

bool AnyFailed(const Report& report, const std::vector<std::string>& keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
    const Section* s = report.FindSection(k);
    return s != nullptr && s->verdict == Verdict::kFail;
  });
}

}  // namespace npugap::report
