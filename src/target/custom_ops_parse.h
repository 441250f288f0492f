// Reader of compiler.custom_ops (internal to src/target).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "npugap/target/target.h"
#include "profile_reader.h"

namespace npugap::target::internal {

// The plugins declared in the compiler section; empty when the member is absent or null. Fails with
// the field's path (e.g. compiler.custom_ops[0].engine) on a malformed entry.
std::vector<CustomOpPlugin> ReadCustomOps(ProfileReader& r, const nlohmann::json& compiler);

}  // namespace npugap::target::internal
