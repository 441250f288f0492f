// Resolving a target by built-in name or file path.
#include "npugap/target/target.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "npugap/target/embedded.h"

namespace npugap::target {
namespace {

// A profile is a few tens of kilobytes; anything far larger is the wrong file.
constexpr std::uintmax_t kMaxProfileBytes = 4u << 20;

const internal::EmbeddedProfile* FindBuiltin(std::string_view name) {
  for (size_t i = 0; i < internal::kNumEmbeddedProfiles; ++i) {
    if (name == internal::kEmbeddedProfiles[i].name) return &internal::kEmbeddedProfiles[i];
  }
  return nullptr;
}

// A user means a file when the argument looks like one; a bare word is a built-in name, so that a
// typo gets the list of valid names rather than "file not found".
bool LooksLikePath(const std::string& s) {
  std::error_code ec;  // the non-throwing overload: a name too long for the OS is just "not a file"
  return s.find('/') != std::string::npos || (s.size() > 5 && s.ends_with(".json")) ||
         std::filesystem::exists(std::filesystem::path(s), ec);
}

Expected<Target> LoadFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return Status::NotFound(path + ": target profile file not found");
  if (!std::filesystem::is_regular_file(st)) return Status::InvalidArgument(path + ": not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::IoError(fmt::format("{}: cannot read: {}", path, ec.message()));
  if (size > kMaxProfileBytes) {
    return Status::InvalidArgument(fmt::format("{}: {} bytes is too large for a target profile", path, size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return Status::IoError(path + ": read failed");
  return ParseTarget(text.str(), path);
}

}  // namespace

std::string_view ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kOfficial:
      return "official";
    case Confidence::kConfig:
      return "config";
    case Confidence::kThirdParty:
      return "third-party";
    case Confidence::kDerived:
      return "derived";
    case Confidence::kAssumed:
      return "assumed";
  }
  return "assumed";
}

std::optional<double> Target::PeakFlops(std::string_view dtype) const {
  const auto it = compute.cube.find(std::string(dtype));
  if (it == compute.cube.end()) return std::nullopt;
  return it->second.peak.value;
}

std::vector<std::string> ListTargets() {
  std::vector<std::string> names;
  for (size_t i = 0; i < internal::kNumEmbeddedProfiles; ++i)
    names.emplace_back(internal::kEmbeddedProfiles[i].name);
  std::sort(names.begin(), names.end());
  return names;
}

Expected<Target> LoadTarget(const std::string& name_or_path) {
  if (const internal::EmbeddedProfile* builtin = FindBuiltin(name_or_path)) {
    const std::string origin =
        fmt::format("built-in target '{}' (data/targets/{}.json)", builtin->name, builtin->name);
    auto target = ParseTarget(builtin->json, origin);
    if (target.ok()) target->origin = "built-in";
    return target;
  }
  if (name_or_path.empty()) return Status::InvalidArgument("empty target name");
  if (LooksLikePath(name_or_path)) return LoadFile(name_or_path);
  std::string valid;
  for (const std::string& n : ListTargets()) valid += (valid.empty() ? "" : ", ") + n;
  return Status::NotFound(fmt::format(
      "unknown target '{}'; valid targets: {} (or the path of a profile .json)", name_or_path, valid));
}

}  // namespace npugap::target
