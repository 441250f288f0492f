// PYTORCH_NPU_ALLOC_CONF: the options of ascend-facts §4.3 (torch_npu docs, PYTORCH_NPU_ALLOC_CONF.md).
#include <fmt/format.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "npugap/analysis/memory/allocator.h"

namespace npugap::analysis::memory {
namespace {

// torch_npu requires max_split_size_mb > 20 (ascend-facts §4.3 table).
constexpr double kMinMaxSplitMb = 20;
// Known options the replay does not model: accepted so that a real configuration parses.
const std::set<std::string> kIgnoredKeys = {"base_addr_aligned_kb",
                                            "page_size",
                                            "segment_size_mb",
                                            "large_segment_size_mb",
                                            "roundup_power2_divisions",
                                            "multi_stream_lazy_reclaim",
                                            "pinned_use_background_threads",
                                            "pin_memory_expandable_segments",
                                            "pinned_mem_register",
                                            "per_process_memory_fraction",
                                            "throw_on_npumalloc_oom",
                                            "pinned_max_round_threshold_mb",
                                            "pinned_max_cached_size_mb",
                                            "max_non_split_rounding_mb"};

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Expected<double> Number(const std::string& key, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0') {
    return Status::InvalidArgument(fmt::format("'{}:{}': '{}' is not a number", key, value, value));
  }
  return v;
}

}  // namespace

Expected<AllocatorConfig> ParseAllocConf(const std::string& text) {
  AllocatorConfig c;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = Trim(item);
    if (item.empty()) continue;
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument(fmt::format("'{}': expected key:value", item));
    }
    const std::string key = Trim(item.substr(0, colon)), value = Trim(item.substr(colon + 1));
    if (key == "max_split_size_mb") {
      NPUGAP_ASSIGN_OR_RETURN(double mb, Number(key, value));
      if (!(mb > kMinMaxSplitMb)) {
        return Status::InvalidArgument(fmt::format("'max_split_size_mb:{}': must be > 20", value));
      }
      c.max_split_size = static_cast<int64_t>(mb * static_cast<double>(kMiB));
    } else if (key == "garbage_collection_threshold") {
      NPUGAP_ASSIGN_OR_RETURN(double t, Number(key, value));
      if (!(t > 0 && t < 1)) {
        return Status::InvalidArgument(
            fmt::format("'garbage_collection_threshold:{}': must be in (0, 1)", value));
      }
      c.garbage_collection_threshold = t;
    } else if (key == "expandable_segments") {
      if (value != "True" && value != "False") {
        return Status::InvalidArgument(fmt::format("'expandable_segments:{}': must be True or False", value));
      }
      c.expandable_segments = value == "True";
    } else if (kIgnoredKeys.count(key)) {
      c.ignored.push_back(key);
    } else {
      return Status::InvalidArgument(
          fmt::format("unknown option '{}' (known: max_split_size_mb, "
                      "garbage_collection_threshold, expandable_segments, ...)",
                      key));
    }
  }
  if (c.expandable_segments && (c.max_split_size || c.garbage_collection_threshold)) {
    return Status::InvalidArgument(
        "expandable_segments:True cannot be combined with max_split_size_mb or garbage_collection_threshold");
  }
  return c;
}

}  // namespace npugap::analysis::memory
