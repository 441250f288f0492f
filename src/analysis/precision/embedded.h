// data/precision/*.json as compiled into the binary (cmake/EmbedJsonFiles.cmake).
#pragma once

#include <cstddef>

namespace npugap::analysis::precision::internal {

struct EmbeddedData {
  const char* name;  // file name without .json
  const char* json;
};
extern const EmbeddedData kEmbeddedPrecisionData[];
extern const std::size_t kNumEmbeddedPrecisionData;

}  // namespace npugap::analysis::precision::internal
