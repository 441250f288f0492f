// The simulator's large arrays live in HugeVector: a buffer of 2 MiB or more starts on a 2 MiB
// boundary (so the kernel can back it with huge pages), a small one is ordinary memory, and both
// hold what was stored through growth and copies.
#include <cstdint>

#include <gtest/gtest.h>

#include "npugap/comm/huge_page_allocator.h"

namespace npugap::comm {
namespace {

TEST(CommHugePages, LargeBuffersStartOnAHugePageAndKeepTheirContents) {
  HugeVector<int64_t> v;
  const size_t n = 3 * kHugePageBytes / sizeof(int64_t) + 7;  // grows through small and large buffers
  for (size_t i = 0; i < n; ++i) v.push_back(static_cast<int64_t>(i * 3));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % kHugePageBytes, 0u);
  const HugeVector<int64_t> copy = v;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copy.data()) % kHugePageBytes, 0u);
  for (size_t i = 0; i < n; i += 4099) EXPECT_EQ(copy[i], static_cast<int64_t>(i * 3));
  EXPECT_EQ(copy.back(), static_cast<int64_t>((n - 1) * 3));
}

TEST(CommHugePages, SmallBuffersKeepTheirTypesAlignment) {
  struct alignas(64) Wide {
    double x[8];
  };
  HugeVector<Wide> v(3);
  v[2].x[7] = 1.5;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u);
  EXPECT_EQ(v[2].x[7], 1.5);
}

}  // namespace
}  // namespace npugap::comm
