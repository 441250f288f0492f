// The built-in target profiles, compiled into the binary from data/targets/*.json by
// cmake/EmbedJsonFiles.cmake, so that they are found from any working directory after install.
#pragma once

#include <cstddef>

namespace npugap::target::internal {

struct EmbeddedProfile {
  const char* name;  // file stem, e.g. "ascend910b2"
  const char* json;  // the file's text
};

extern const EmbeddedProfile kEmbeddedProfiles[];
extern const std::size_t kNumEmbeddedProfiles;

}  // namespace npugap::target::internal
