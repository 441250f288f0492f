// A model of torch_npu's NPUCachingAllocator (and, with its pad set to 0, of PyTorch's CUDA
// caching allocator, which has the same design and constants): block rounding, small and large
// pools, segment sizes, best-fit reuse, splitting, merging on free, garbage collection and
// expandable segments. Constants: ascend-facts §4.3, perf-memory-comm-anchors §2.1-2.2.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "npugap/base/status.h"

namespace npugap::analysis::memory {

inline constexpr int64_t kMiB = int64_t{1} << 20;
// NPUCachingAllocator.cpp / CUDACachingAllocator.cpp (ascend-facts §4.3, anchors §2.1).
inline constexpr int64_t kMinBlockSize = 512;      // every block is a multiple of this
inline constexpr int64_t kSmallSize = 1 * kMiB;    // largest small-pool request
inline constexpr int64_t kSmallBuffer = 2 * kMiB;  // small-pool segment
inline constexpr int64_t kMinLargeAlloc = 10 * kMiB;
inline constexpr int64_t kLargeBuffer = 20 * kMiB;  // segment of a 1-10 MiB request; expandable large page
inline constexpr int64_t kRoundLarge = 2 * kMiB;    // >= 10 MiB segments round to this
// torch_npu's AddPadSize() (ascend-facts §4.3); the CUDA allocator adds nothing.
inline constexpr int64_t kNpuPadSize = 32;

// PYTORCH_NPU_ALLOC_CONF as far as it changes the replay.
struct AllocatorConfig {
  int64_t pad = kNpuPadSize;
  std::optional<int64_t> max_split_size;               // bytes; unset = unlimited
  std::optional<double> garbage_collection_threshold;  // fraction of the memory limit
  bool expandable_segments = false;
  std::vector<std::string> ignored;  // known keys that the replay does not model
};

// "max_split_size_mb:128,garbage_collection_threshold:0.6,expandable_segments:True". Errors name
// the key or value: unknown key, malformed pair, max_split_size_mb <= 20, threshold outside (0, 1),
// expandable_segments combined with either of the other two (torch_npu rejects that).
Expected<AllocatorConfig> ParseAllocConf(const std::string& text);

// torch's round_size: pad, then at least kMinBlockSize, rounded up to it.
int64_t RoundSize(int64_t bytes, int64_t pad);
// Segment the allocator asks the device for when no cached block fits a rounded request.
int64_t SegmentSize(int64_t rounded);

struct AllocatorStats {
  int64_t allocated = 0;  // bytes in blocks handed out (rounded)
  int64_t reserved = 0;   // bytes of segments held from the device
  int64_t peak_allocated = 0;
  int64_t peak_reserved = 0;
  int64_t segments = 0;
  int64_t device_mallocs = 0;  // segment allocations (or page-map extensions)
  int64_t ooms = 0;            // requests that could not be met even after freeing the cache
};

class CachingAllocator {
 public:
  // `limit`: bytes the allocator may reserve (device memory minus reserve); <= 0 = unlimited.
  CachingAllocator(AllocatorConfig config, int64_t limit);

  // Returns a handle for Free, or -1 when the request failed (counted in stats().ooms).
  int64_t Malloc(int64_t bytes);
  void Free(int64_t handle);
  // Releases every cached segment that is entirely free (torch.npu.empty_cache()).
  void EmptyCache();

  const AllocatorStats& stats() const { return stats_; }
  void ResetPeaks();
  // Sizes of the blocks currently in each pool (tests): {size, allocated}.
  std::vector<std::pair<int64_t, bool>> Blocks(bool small_pool) const;

 private:
  struct Block {
    int64_t size = 0;
    int64_t addr = 0;
    int segment = -1;
    bool small = false;
    bool allocated = false;
    int64_t prev = -1, next = -1;  // neighbours in the segment
  };
  struct Segment {
    int64_t size = 0;
    bool small = false;
    bool expandable = false;
    bool live = true;
  };
  using FreeSet = std::set<std::pair<int64_t, int64_t>>;  // (size, handle): best fit = lower_bound

  int64_t FindFree(bool small, int64_t size);
  int64_t NewSegment(bool small, int64_t size);
  int64_t Expand(bool small, int64_t size);
  bool ShouldSplit(const Block& block, int64_t size) const;
  int64_t Split(int64_t handle, int64_t size);
  void ReleaseCached(int64_t at_least);
  bool ReleaseSegment(int segment);
  void GarbageCollect();
  FreeSet& Pool(bool small) { return small ? free_small_ : free_large_; }

  AllocatorConfig config_;
  int64_t limit_;
  std::vector<Block> blocks_;  // handles index here; merged blocks stay as dead entries
  std::vector<Segment> segments_;
  FreeSet free_small_, free_large_;
  int expandable_small_ = -1, expandable_large_ = -1;  // the one growing segment per pool
  int64_t next_addr_ = 0;
  AllocatorStats stats_;
};

}  // namespace npugap::analysis::memory
