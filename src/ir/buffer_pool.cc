#include "npugap/ir/buffer_pool.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace npugap::ir {
namespace {

// Large blocks are rounded to 64 KiB so that shapes differing slightly still share blocks.
constexpr size_t kLargeGranule = size_t{64} << 10;

size_t RoundUp(size_t bytes, size_t granule) { return (bytes + granule - 1) / granule * granule; }

class Pool {
 public:
  void* Take(size_t rounded) {
    std::lock_guard lock(mu_);
    auto it = free_.find(rounded);
    if (it == free_.end() || it->second.empty()) {
      ++stats_.misses;
      return nullptr;
    }
    void* p = it->second.back();
    it->second.pop_back();
    stats_.cached_bytes -= static_cast<int64_t>(rounded);
    ++stats_.hits;
    return p;
  }

  // Keeps the block when it fits under the cap; otherwise frees it.
  void Give(void* p, size_t rounded) {
    {
      std::lock_guard lock(mu_);
      if (static_cast<size_t>(stats_.cached_bytes) + rounded <= kMaxCachedBytes) {
        free_[rounded].push_back(p);
        stats_.cached_bytes += static_cast<int64_t>(rounded);
        return;
      }
    }
    std::free(p);
  }

  void ReleaseAll() {
    std::lock_guard lock(mu_);
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) std::free(p);
    }
    free_.clear();
    stats_.cached_bytes = 0;
  }

  BufferPoolStats Stats() {
    std::lock_guard lock(mu_);
    return stats_;
  }

 private:
  std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;
  BufferPoolStats stats_;
};

// Never destroyed: tensors held in static objects may be freed after main returns.
Pool& GlobalPool() {
  static Pool* pool = new Pool();
  return *pool;
}

}  // namespace

std::shared_ptr<std::byte[]> AllocateBuffer(size_t bytes) {
  if (bytes < kPooledMinBytes) {
    const size_t rounded = RoundUp(bytes == 0 ? 1 : bytes, kBufferAlignment);
    void* p = std::aligned_alloc(kBufferAlignment, rounded);
    if (p == nullptr) return nullptr;
    return {static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); }};
  }
  const size_t rounded = RoundUp(bytes, kLargeGranule);
  void* p = GlobalPool().Take(rounded);
  if (p == nullptr) p = std::aligned_alloc(kBufferAlignment, rounded);
  if (p == nullptr) {
    // Out of memory with blocks cached: give them back and try once more.
    ReleaseCachedBuffers();
    p = std::aligned_alloc(kBufferAlignment, rounded);
    if (p == nullptr) return nullptr;
  }
  return {static_cast<std::byte*>(p), [rounded](std::byte* q) { GlobalPool().Give(q, rounded); }};
}

BufferPoolStats GetBufferPoolStats() { return GlobalPool().Stats(); }

void ReleaseCachedBuffers() { GlobalPool().ReleaseAll(); }

}  // namespace npugap::ir
