#include "profile_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace npugap::target::internal {
namespace {

using nlohmann::json;

struct UnitScale {
  std::string_view unit;
  double scale;  // multiply by this to get the base unit
};

// Units a profile may write per dimension. Profiles keep the units of their sources (MHz, GiB,
// Gbit/s) so that a reader can check a number against the cited text; npugap converts.
const std::vector<UnitScale>& UnitsOf(Dim dim) {
  static const std::vector<UnitScale> kNone = {};
  static const std::vector<UnitScale> kBytes = {{"B", 1},        {"KiB", 0x1p10}, {"MiB", 0x1p20},
                                                {"GiB", 0x1p30}, {"TiB", 0x1p40}, {"KB", 1e3},
                                                {"MB", 1e6},     {"GB", 1e9},     {"TB", 1e12}};
  static const std::vector<UnitScale> kBandwidth = {
      {"B/s", 1},        {"KB/s", 1e3},     {"MB/s", 1e6},       {"GB/s", 1e9},      {"TB/s", 1e12},
      {"MiB/s", 0x1p20}, {"GiB/s", 0x1p30}, {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8}};
  static const std::vector<UnitScale> kFrequency = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  static const std::vector<UnitScale> kTime = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  static const std::vector<UnitScale> kRate = {{"FLOP/s", 1},    {"GFLOPS", 1e9}, {"TFLOPS", 1e12},
                                               {"PFLOPS", 1e15}, {"OP/s", 1},     {"GOPS", 1e9},
                                               {"TOPS", 1e12}};
  static const std::vector<UnitScale> kBits = {{"bit", 1}};
  static const std::vector<UnitScale> kBytesPerCycle = {{"B/cycle", 1}};
  static const std::vector<UnitScale> kMacsPerCycle = {{"MAC/cycle", 1}};
  switch (dim) {
    case Dim::kNone:
      return kNone;
    case Dim::kBytes:
      return kBytes;
    case Dim::kBandwidth:
      return kBandwidth;
    case Dim::kFrequency:
      return kFrequency;
    case Dim::kTime:
      return kTime;
    case Dim::kRate:
      return kRate;
    case Dim::kBits:
      return kBits;
    case Dim::kBytesPerCycle:
      return kBytesPerCycle;
    case Dim::kMacsPerCycle:
      return kMacsPerCycle;
  }
  return kNone;
}

std::string UnitList(Dim dim) {
  std::string out;
  for (const UnitScale& u : UnitsOf(dim)) out += (out.empty() ? "" : ", ") + std::string(u.unit);
  return out;
}

std::string TypeName(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

std::string Joined(std::initializer_list<std::string_view> items) {
  std::string out;
  for (std::string_view s : items) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

bool Contains(std::initializer_list<std::string_view> items, std::string_view s) {
  for (std::string_view item : items) {
    if (item == s) return true;
  }
  return false;
}

std::optional<Confidence> ParseConfidence(std::string_view s) {
  for (Confidence c : {Confidence::kOfficial, Confidence::kConfig, Confidence::kThirdParty,
                       Confidence::kDerived, Confidence::kAssumed}) {
    if (ConfidenceName(c) == s) return c;
  }
  return std::nullopt;
}

}  // namespace

std::string_view LastKey(std::string_view path) {
  const size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

void ProfileReader::Fail(const std::string& path, const std::string& problem) const {
  throw ProfileError(fmt::format("{}: field '{}': {}", origin_, path, problem));
}

const json& ProfileReader::Member(const json& parent, const std::string& path) const {
  const auto it = parent.find(std::string(LastKey(path)));
  if (it == parent.end()) Fail(path, "missing");
  return *it;
}

const json& ProfileReader::Section(const json& parent, const std::string& path) const {
  const json& member = Member(parent, path);
  if (!member.is_object()) Fail(path, "expected an object, got " + TypeName(member));
  return member;
}

const json* ProfileReader::OptionalSection(const json& parent, const std::string& path) const {
  const json& member = Member(parent, path);
  if (member.is_null()) return nullptr;
  if (!member.is_object()) Fail(path, "expected an object or null, got " + TypeName(member));
  return &member;
}

void ProfileReader::WarnUnknownKeys(const json& object, const std::string& path,
                                    std::initializer_list<std::string_view> known) {
  for (const auto& [key, unused] : object.items()) {
    if (!Contains(known, key)) {
      warnings_.push_back(fmt::format("{}: field '{}{}{}': unknown key, ignored", origin_, path,
                                      path.empty() ? "" : ".", key));
    }
  }
}

std::string ProfileReader::ReadString(const json& parent, const std::string& path) const {
  const json& member = Member(parent, path);
  if (!member.is_string()) Fail(path, "expected a string, got " + TypeName(member));
  return member.get<std::string>();
}

const json& ProfileReader::FactValue(const json& parent, const std::string& path, Provenance& origin) {
  const json& fact = Section(parent, path);
  WarnUnknownKeys(fact, path, {"value", "unit", "source", "confidence"});
  const auto value = fact.find("value");
  if (value == fact.end()) Fail(path + ".value", "missing");
  origin.source = ReadString(fact, path + ".source");
  if (origin.source.empty())
    Fail(path + ".source", "empty; every number needs its source (or, if assumed, why)");
  const std::string confidence = ReadString(fact, path + ".confidence");
  const auto parsed = ParseConfidence(confidence);
  if (!parsed) {
    Fail(path + ".confidence",
         fmt::format("'{}' is not one of official, config, third-party, derived, assumed", confidence));
  }
  origin.confidence = *parsed;
  return *value;
}

void ProfileReader::Record(const std::string& path, const json& value, const std::string& unit,
                           const Provenance& o) {
  facts_.push_back({path, value.is_string() ? value.get<std::string>() : value.dump(), unit, o});
}

double ProfileReader::ReadScaled(const json& parent, const std::string& path, Dim dim, Bound bound,
                                 Provenance& origin) {
  const json& value = FactValue(parent, path, origin);
  if (!value.is_number()) Fail(path + ".value", "expected a number, got " + TypeName(value));
  const double v = value.get<double>();
  if (!std::isfinite(v)) Fail(path + ".value", "not a finite number");
  if (bound == Bound::kPositive && v <= 0)
    Fail(path + ".value", fmt::format("must be > 0, got {}", value.dump()));
  if (bound == Bound::kNonNegative && v < 0)
    Fail(path + ".value", fmt::format("must be >= 0, got {}", value.dump()));

  const json& fact = parent.at(std::string(LastKey(path)));
  const auto unit_it = fact.find("unit");
  double scale = 1;
  std::string unit;
  if (dim == Dim::kNone) {
    if (unit_it != fact.end() && !(unit_it->is_string() && unit_it->get<std::string>().empty())) {
      Fail(path + ".unit", "this field is a plain number and takes no unit");
    }
  } else {
    if (unit_it == fact.end()) Fail(path + ".unit", "missing (one of " + UnitList(dim) + ")");
    if (!unit_it->is_string()) Fail(path + ".unit", "expected a string, got " + TypeName(*unit_it));
    unit = unit_it->get<std::string>();
    bool known = false;
    for (const UnitScale& u : UnitsOf(dim)) {
      if (u.unit == unit) {
        scale = u.scale;
        known = true;
      }
    }
    if (!known) Fail(path + ".unit", fmt::format("'{}' is not one of {}", unit, UnitList(dim)));
  }
  Record(path, value, unit, origin);
  return v * scale;
}

Number ProfileReader::ReadNumber(const json& parent, const std::string& path, Dim dim, Bound bound) {
  Number n;
  n.value = ReadScaled(parent, path, dim, bound, n.origin);
  return n;
}

Count ProfileReader::ReadCount(const json& parent, const std::string& path, Dim dim, Bound bound) {
  Count c;
  const double v = ReadScaled(parent, path, dim, bound, c.origin);
  // Byte sizes and counts must come out whole: 1.5 GiB is fine, 0.3 B is a typo.
  if (v != std::floor(v) || v > 9.0e18)
    Fail(path + ".value", fmt::format("must be a whole number, got {}", v));
  c.value = static_cast<int64_t>(v);
  return c;
}

Text ProfileReader::ReadText(const json& parent, const std::string& path,
                             std::initializer_list<std::string_view> allowed) {
  Text t;
  const json& value = FactValue(parent, path, t.origin);
  if (!value.is_string()) Fail(path + ".value", "expected a string, got " + TypeName(value));
  t.value = value.get<std::string>();
  if (allowed.size() != 0 && !Contains(allowed, t.value)) {
    Fail(path + ".value", fmt::format("'{}' is not one of {}", t.value, Joined(allowed)));
  }
  Record(path, value, "", t.origin);
  return t;
}

Flag ProfileReader::ReadFlag(const json& parent, const std::string& path) {
  Flag f;
  const json& value = FactValue(parent, path, f.origin);
  if (!value.is_boolean()) Fail(path + ".value", "expected true or false, got " + TypeName(value));
  f.value = value.get<bool>();
  Record(path, value, "", f.origin);
  return f;
}

TextList ProfileReader::ReadTextList(const json& parent, const std::string& path,
                                     std::initializer_list<std::string_view> allowed) {
  TextList l;
  const json& value = FactValue(parent, path, l.origin);
  if (!value.is_array() || value.empty()) Fail(path + ".value", "expected a non-empty array of strings");
  for (const json& item : value) {
    if (!item.is_string()) Fail(path + ".value", "expected strings, got " + TypeName(item));
    const std::string s = item.get<std::string>();
    if (!Contains(allowed, s))
      Fail(path + ".value", fmt::format("'{}' is not one of {}", s, Joined(allowed)));
    l.value.push_back(s);
  }
  Record(path, value, "", l.origin);
  return l;
}

Shape3 ProfileReader::ReadShape3(const json& parent, const std::string& path) {
  Shape3 s;
  const json& value = FactValue(parent, path, s.origin);
  if (!value.is_array() || value.size() != 3) Fail(path + ".value", "expected [m, k, n]");
  for (size_t i = 0; i < 3; ++i) {
    if (!value[i].is_number_integer() || value[i].get<int64_t>() <= 0) {
      Fail(path + ".value", "expected three positive integers [m, k, n]");
    }
    s.value[i] = value[i].get<int64_t>();
  }
  Record(path, value, "m,k,n", s.origin);
  return s;
}

}  // namespace npugap::target::internal
