// Reads the facts of a target profile out of its JSON with one-line errors that name the file and
// the field. Internal to src/target.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "npugap/target/target.h"

namespace npugap::target::internal {

// Thrown inside the reader and caught at ParseTarget's boundary, which turns it into a Status; it
// never escapes the library. Exceptions keep the many field reads free of error plumbing.
struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a number measures; decides which units the profile may write and the base unit it is
// converted to.
enum class Dim { kNone, kBytes, kBandwidth, kFrequency, kTime, kRate, kBits, kBytesPerCycle, kMacsPerCycle };

enum class Bound { kPositive, kNonNegative };

class ProfileReader {
 public:
  explicit ProfileReader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void Fail(const std::string& path, const std::string& problem) const;

  // A required member that must be an object (`Section`) or may be null (`OptionalSection`).
  const nlohmann::json& Section(const nlohmann::json& parent, const std::string& path) const;
  const nlohmann::json* OptionalSection(const nlohmann::json& parent, const std::string& path) const;
  // Records a warning for every member of `object` that is not in `known`.
  void WarnUnknownKeys(const nlohmann::json& object, const std::string& path,
                       std::initializer_list<std::string_view> known);

  // Facts: {"value": ..., "unit": ..., "source": ..., "confidence": ...}. `path` is the dotted
  // name of the member inside `parent` (its last component is the key).
  Number ReadNumber(const nlohmann::json& parent, const std::string& path, Dim dim, Bound bound);
  Count ReadCount(const nlohmann::json& parent, const std::string& path, Dim dim, Bound bound);
  Text ReadText(const nlohmann::json& parent, const std::string& path,
                std::initializer_list<std::string_view> allowed = {});
  Flag ReadFlag(const nlohmann::json& parent, const std::string& path);
  TextList ReadTextList(const nlohmann::json& parent, const std::string& path,
                        std::initializer_list<std::string_view> allowed);
  Shape3 ReadShape3(const nlohmann::json& parent, const std::string& path);

  // Plain (non-fact) members.
  std::string ReadString(const nlohmann::json& parent, const std::string& path) const;

  // The same readers for members that may be null; null gives nullopt.
  template <typename ReadFn>
  auto ReadOptional(const nlohmann::json& parent, const std::string& path, ReadFn read)
      -> std::optional<decltype(read())> {
    const nlohmann::json& member = Member(parent, path);
    if (member.is_null()) return std::nullopt;
    return read();
  }

  std::vector<FactRow>& facts() { return facts_; }
  std::vector<std::string>& warnings() { return warnings_; }

 private:
  const nlohmann::json& Member(const nlohmann::json& parent, const std::string& path) const;
  // Checks the fact object's keys, source and confidence; returns its "value".
  const nlohmann::json& FactValue(const nlohmann::json& parent, const std::string& path, Provenance& origin);
  double ReadScaled(const nlohmann::json& parent, const std::string& path, Dim dim, Bound bound,
                    Provenance& origin);
  void Record(const std::string& path, const nlohmann::json& value, const std::string& unit,
              const Provenance& o);

  std::string origin_;
  std::vector<FactRow> facts_;
  std::vector<std::string> warnings_;
};

// "compute.clock" -> "clock".
std::string_view LastKey(std::string_view path);

}  // namespace npugap::target::internal
