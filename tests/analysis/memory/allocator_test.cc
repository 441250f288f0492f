// The caching-allocator model, rule by rule, against sequences computed by hand with the
// constants of ascend-facts §4.3 (torch_npu) and perf-memory-comm-anchors §2.1 (CUDA).
#include "npugap/analysis/memory/allocator.h"

#include <gtest/gtest.h>

namespace npugap::analysis::memory {
namespace {

using Blocks = std::vector<std::pair<int64_t, bool>>;
constexpr int64_t MiB = kMiB;

AllocatorConfig Npu() { return AllocatorConfig{}; }
AllocatorConfig Cuda() {
  AllocatorConfig c;
  c.pad = 0;
  return c;
}

TEST(AllocatorTest, RoundSizeAddsThirtyTwoBytesThenRoundsTo512) {
  EXPECT_EQ(RoundSize(1, 32), 512);
  EXPECT_EQ(RoundSize(480, 32), 512);
  EXPECT_EQ(RoundSize(481, 32), 1024);
  EXPECT_EQ(RoundSize(MiB, 32), MiB + 512);  // 1,049,088 B: no longer a small-pool block
  EXPECT_EQ(RoundSize(MiB, 0), MiB);
}

TEST(AllocatorTest, SegmentSizes) {
  EXPECT_EQ(SegmentSize(MiB), 2 * MiB);              // small pool
  EXPECT_EQ(SegmentSize(MiB + 512), 20 * MiB);       // 1-10 MiB: a 20 MiB segment
  EXPECT_EQ(SegmentSize(10 * MiB), 10 * MiB);        // >= 10 MiB: rounded to 2 MiB
  EXPECT_EQ(SegmentSize(10 * MiB + 512), 12 * MiB);  // the NPU's padded 10 MiB tensor
  EXPECT_EQ(SegmentSize(64 * MiB + 512), 66 * MiB);
}

TEST(AllocatorTest, OneMiBTensorIsLargePoolOnNpuAndSmallPoolOnCuda) {
  CachingAllocator npu(Npu(), 0);
  npu.Malloc(MiB);
  EXPECT_EQ(npu.stats().reserved, 20 * MiB);
  EXPECT_EQ(npu.Blocks(false), (Blocks{{MiB + 512, true}, {19 * MiB - 512, false}}));
  EXPECT_TRUE(npu.Blocks(true).empty());
  CachingAllocator cuda(Cuda(), 0);
  cuda.Malloc(MiB);
  EXPECT_EQ(cuda.stats().reserved, 2 * MiB);
  EXPECT_EQ(cuda.Blocks(true), (Blocks{{MiB, true}, {MiB, false}}));
}

TEST(AllocatorTest, SmallPoolSplitsAndMergesOnFree) {
  CachingAllocator a(Npu(), 0);
  const int64_t x = a.Malloc(1000);  // 1032 -> 1536
  const int64_t y = a.Malloc(1000);
  EXPECT_EQ(a.Blocks(true), (Blocks{{1536, true}, {1536, true}, {2 * MiB - 3072, false}}));
  a.Free(x);
  EXPECT_EQ(a.Blocks(true), (Blocks{{1536, false}, {1536, true}, {2 * MiB - 3072, false}}));
  a.Free(y);
  EXPECT_EQ(a.Blocks(true), (Blocks{{2 * MiB, false}}));
  EXPECT_EQ(a.stats().allocated, 0);
  a.Malloc(2000);
  EXPECT_EQ(a.stats().device_mallocs, 1);  // served from the cache
}

TEST(AllocatorTest, LargePoolSplitsOnlyWhenMoreThanOneMiBRemains) {
  CachingAllocator a(Npu(), 0);
  a.Free(a.Malloc(5 * MiB));  // a 20 MiB segment, split, merged back
  EXPECT_EQ(a.Blocks(false), (Blocks{{20 * MiB, false}}));
  a.Malloc(19 * MiB + MiB / 2);  // 19.5 MiB + 512 leaves 0.5 MiB - 512: not split
  EXPECT_EQ(a.Blocks(false), (Blocks{{20 * MiB, true}}));
  EXPECT_EQ(a.stats().allocated, 20 * MiB);
  EXPECT_EQ(a.stats().device_mallocs, 1);
}

TEST(AllocatorTest, BestFitTakesTheSmallestCachedBlock) {
  CachingAllocator a(Npu(), 0);
  const int64_t x = a.Malloc(30 * MiB);  // segment 32 MiB
  const int64_t y = a.Malloc(50 * MiB);  // segment 52 MiB
  a.Free(x);
  a.Free(y);
  a.Malloc(31 * MiB);  // fits both; takes the 32 MiB block whole (remainder 1 MiB - 512)
  EXPECT_EQ(a.Blocks(false), (Blocks{{32 * MiB, true}, {52 * MiB, false}}));
  EXPECT_EQ(a.stats().reserved, 84 * MiB);
  EXPECT_EQ(a.stats().device_mallocs, 2);
}

TEST(AllocatorTest, MaxSplitSizeKeepsOversizeBlocksForOversizeRequests) {
  AllocatorConfig c = Npu();
  c.max_split_size = 40 * MiB;
  CachingAllocator a(c, 0);
  const int64_t x = a.Malloc(50 * MiB);  // 52 MiB segment, not split (>= max_split_size)
  EXPECT_EQ(a.stats().allocated, 52 * MiB);
  a.Free(x);
  a.Malloc(10 * MiB);  // below max_split_size: may not take the 52 MiB block -> new 12 MiB segment
  EXPECT_EQ(a.stats().reserved, 64 * MiB);
  a.Malloc(45 * MiB);  // oversize, within 20 MiB of 52 MiB: reuses it
  EXPECT_EQ(a.stats().reserved, 64 * MiB);

  CachingAllocator unlimited(Npu(), 0);
  unlimited.Free(unlimited.Malloc(50 * MiB));
  unlimited.Malloc(10 * MiB);  // splits the cached 52 MiB block
  EXPECT_EQ(unlimited.stats().reserved, 52 * MiB);
}

TEST(AllocatorTest, ExpandableSegmentsGrowInPagesInsteadOfNewSegments) {
  AllocatorConfig c = Npu();
  c.expandable_segments = true;
  CachingAllocator a(c, 0);
  const int64_t x = a.Malloc(30 * MiB);  // two 20 MiB pages
  EXPECT_EQ(a.stats().reserved, 40 * MiB);
  EXPECT_EQ(a.stats().allocated, 30 * MiB + 512);  // split: 512 B rule in both pools
  a.Free(x);
  a.Malloc(45 * MiB);  // the free 40 MiB tail grows by one page
  EXPECT_EQ(a.stats().reserved, 60 * MiB);
  EXPECT_EQ(a.Blocks(false), (Blocks{{45 * MiB + 512, true}, {15 * MiB - 512, false}}));

  CachingAllocator fixed(Npu(), 0);  // the same sequence with segments: a sliver stays behind
  fixed.Free(fixed.Malloc(30 * MiB));
  fixed.Malloc(45 * MiB);
  EXPECT_EQ(fixed.stats().reserved, (32 + 46) * MiB);
}

TEST(AllocatorTest, LimitReleasesTheCacheThenFails) {
  CachingAllocator a(Npu(), 40 * MiB);
  a.Free(a.Malloc(30 * MiB));        // 32 MiB cached
  EXPECT_GE(a.Malloc(35 * MiB), 0);  // 32 + 36 > 40: the cache is released first
  EXPECT_EQ(a.stats().reserved, 36 * MiB);
  EXPECT_EQ(a.stats().ooms, 0);
  EXPECT_EQ(a.Malloc(10 * MiB), -1);  // 36 + 12 > 40 and nothing cached
  EXPECT_EQ(a.stats().ooms, 1);
}

TEST(AllocatorTest, GarbageCollectionFreesCachedSegmentsAboveTheThreshold) {
  AllocatorConfig c = Npu();
  c.garbage_collection_threshold = 0.5;
  CachingAllocator a(c, 100 * MiB);
  a.Free(a.Malloc(30 * MiB));  // 32 MiB cached
  a.Free(a.Malloc(40 * MiB));  // 32 <= 50: no collection; 42 MiB more
  EXPECT_EQ(a.stats().reserved, 74 * MiB);
  a.Malloc(50 * MiB);  // 74 > 50: the 32 MiB segment goes, then a 52 MiB one
  EXPECT_EQ(a.stats().reserved, 94 * MiB);
}

TEST(AllocatorTest, EmptyCacheKeepsSegmentsInUse) {
  CachingAllocator a(Npu(), 0);
  a.Malloc(30 * MiB);
  a.Free(a.Malloc(50 * MiB));
  a.EmptyCache();
  EXPECT_EQ(a.stats().reserved, 32 * MiB);
}

TEST(AllocConfTest, ParsesTheModelledKeys) {
  auto c = ParseAllocConf("max_split_size_mb:128, garbage_collection_threshold:0.6,segment_size_mb:20");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(*c->max_split_size, 128 * MiB);
  EXPECT_DOUBLE_EQ(*c->garbage_collection_threshold, 0.6);
  EXPECT_FALSE(c->expandable_segments);
  EXPECT_EQ(c->ignored, std::vector<std::string>{"segment_size_mb"});
  auto e = ParseAllocConf("expandable_segments:True");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->expandable_segments);
  EXPECT_TRUE(ParseAllocConf("").ok());
}

TEST(AllocConfTest, ErrorsNameTheKeyOrValue) {
  auto message = [](const std::string& text) {
    auto c = ParseAllocConf(text);
    EXPECT_FALSE(c.ok()) << text;
    return c.ok() ? std::string() : c.status().message();
  };
  EXPECT_NE(message("max_split_size_mb:20").find("max_split_size_mb:20"), std::string::npos);
  EXPECT_NE(message("max_split_size_mb:abc").find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(message("garbage_collection_threshold:1.5").find("(0, 1)"), std::string::npos);
  EXPECT_NE(message("expandable_segments:yes").find("True or False"), std::string::npos);
  EXPECT_NE(message("bogus_key:1").find("unknown option 'bogus_key'"), std::string::npos);
  EXPECT_NE(message("expandable_segments").find("key:value"), std::string::npos);
  EXPECT_NE(message("expandable_segments:True,max_split_size_mb:64").find("cannot be combined"),
            std::string::npos);
}

}  // namespace
}  // namespace npugap::analysis::memory
