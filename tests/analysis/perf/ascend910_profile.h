// The built-in ascend910 profile, loaded once for the cost model tests of this folder.
#pragma once

#include <gtest/gtest.h>

#include "npugap/target/target.h"

namespace npugap::analysis::perf {

inline const target::Target& Ascend910() {
  static const target::Target t = [] {
    auto r = target::LoadTarget("ascend910");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return *r;
  }();
  return t;
}

}  // namespace npugap::analysis::perf
