// The rules below follow torch_npu's NPUCachingAllocator.cpp as summarised in ascend-facts §4.3 and
// perf-memory-comm-anchors §2.1-2.2 (which also cites the CUDA allocator it derives from):
//  - round_size: + pad (32 B on NPU), then at least and a multiple of 512 B;
//  - pools: rounded size <= 1 MiB small, else large;
//  - new segment: small -> 2 MiB; < 10 MiB -> 20 MiB; else rounded up to 2 MiB;
//  - best fit in the request's pool; with max_split_size set, blocks >= it serve only requests
//    >= it and within kLargeBuffer (max_non_split_rounding_mb default 20) of their size;
//  - split when the remainder is >= 512 B (small pool, or any pool with expandable segments), or
//    > 1 MiB (large pool, and only requests below max_split_size);
//  - on a miss: garbage collection (threshold set), a new segment, then freeing cached blocks;
//  - expandable segments: one segment per pool that grows by 2 MiB (small) / 20 MiB (large) pages.
#include "npugap/analysis/memory/allocator.h"

#include <algorithm>

namespace npugap::analysis::memory {

int64_t RoundSize(int64_t bytes, int64_t pad) {
  const int64_t size = bytes + pad;
  if (size < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

int64_t SegmentSize(int64_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

CachingAllocator::CachingAllocator(AllocatorConfig config, int64_t limit)
    : config_(std::move(config)), limit_(limit) {}

void CachingAllocator::ResetPeaks() {
  stats_.peak_allocated = stats_.allocated;
  stats_.peak_reserved = stats_.reserved;
}

bool CachingAllocator::ShouldSplit(const Block& b, int64_t size) const {
  const int64_t remaining = b.size - size;
  if (b.small || config_.expandable_segments) return remaining >= kMinBlockSize;
  const bool below_max = !config_.max_split_size || size < *config_.max_split_size;
  return below_max && remaining > kSmallSize;
}

int64_t CachingAllocator::FindFree(bool small, int64_t size) {
  FreeSet& pool = Pool(small);
  auto it = pool.lower_bound({size, -1});
  if (it == pool.end()) return -1;
  if (config_.max_split_size) {
    const int64_t max_split = *config_.max_split_size;
    if (size < max_split && it->first >= max_split) return -1;
    if (size >= max_split && it->first >= size + kLargeBuffer) return -1;
  }
  const int64_t h = it->second;
  pool.erase(it);
  return h;
}

int64_t CachingAllocator::NewSegment(bool small, int64_t size) {
  const int64_t seg = SegmentSize(size);
  if (limit_ > 0 && stats_.reserved + seg > limit_) return -1;
  segments_.push_back({seg, small, false, true});
  Block b;
  b.size = seg;
  b.addr = next_addr_;
  b.small = small;
  b.segment = static_cast<int>(segments_.size()) - 1;
  next_addr_ += seg;
  blocks_.push_back(b);
  stats_.reserved += seg;
  ++stats_.segments;
  ++stats_.device_mallocs;
  return static_cast<int64_t>(blocks_.size()) - 1;
}

int64_t CachingAllocator::Expand(bool small, int64_t size) {
  const int64_t page = small ? kSmallBuffer : kLargeBuffer;
  int& seg_id = small ? expandable_small_ : expandable_large_;
  if (seg_id < 0) {
    segments_.push_back({0, small, true, true});
    seg_id = static_cast<int>(segments_.size()) - 1;
    ++stats_.segments;
  }
  // The free block at the segment's end, if any, grows into the new pages.
  int64_t tail = -1;
  for (size_t h = 0; h < blocks_.size(); ++h) {
    const Block& b = blocks_[h];
    if (b.segment == seg_id && b.size > 0 && b.next == -1) tail = static_cast<int64_t>(h);
  }
  const int64_t have = tail >= 0 && !blocks_[static_cast<size_t>(tail)].allocated
                           ? blocks_[static_cast<size_t>(tail)].size
                           : 0;
  const int64_t grow = page * ((size - have + page - 1) / page);
  if (limit_ > 0 && stats_.reserved + grow > limit_) return -1;
  Segment& seg = segments_[static_cast<size_t>(seg_id)];
  if (have > 0) {
    Pool(small).erase({have, tail});
    blocks_[static_cast<size_t>(tail)].size += grow;
  } else {
    Block b;
    b.size = grow;
    b.addr = seg.size;
    b.small = small;
    b.segment = seg_id;
    b.prev = tail;
    blocks_.push_back(b);
    const int64_t h = static_cast<int64_t>(blocks_.size()) - 1;
    if (tail >= 0) blocks_[static_cast<size_t>(tail)].next = h;
    tail = h;
  }
  seg.size += grow;
  stats_.reserved += grow;
  ++stats_.device_mallocs;
  return tail;
}

int64_t CachingAllocator::Split(int64_t handle, int64_t size) {
  Block rest = blocks_[static_cast<size_t>(handle)];
  rest.size -= size;
  rest.addr += size;
  rest.prev = handle;
  rest.allocated = false;
  blocks_.push_back(rest);
  const int64_t r = static_cast<int64_t>(blocks_.size()) - 1;
  if (rest.next >= 0) blocks_[static_cast<size_t>(rest.next)].prev = r;
  Block& b = blocks_[static_cast<size_t>(handle)];
  b.size = size;
  b.next = r;
  Pool(b.small).insert({rest.size, r});
  return r;
}

int64_t CachingAllocator::Malloc(int64_t bytes) {
  const int64_t size = RoundSize(bytes, config_.pad);
  const bool small = size <= kSmallSize;
  int64_t h = FindFree(small, size);
  if (h < 0) {
    if (config_.garbage_collection_threshold && limit_ > 0) GarbageCollect();
    auto grow = [&] { return config_.expandable_segments ? Expand(small, size) : NewSegment(small, size); };
    h = grow();
    if (h < 0 && config_.max_split_size) {
      ReleaseCached(size);
      h = FindFree(small, size);
      if (h < 0) h = grow();
    }
    if (h < 0) {
      EmptyCache();
      h = grow();
    }
    if (h < 0) {
      ++stats_.ooms;
      return -1;
    }
  }
  if (ShouldSplit(blocks_[static_cast<size_t>(h)], size)) Split(h, size);
  Block& b = blocks_[static_cast<size_t>(h)];
  b.allocated = true;
  stats_.allocated += b.size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  return h;
}

void CachingAllocator::Free(int64_t handle) {
  if (handle < 0 || static_cast<size_t>(handle) >= blocks_.size()) return;
  Block* b = &blocks_[static_cast<size_t>(handle)];
  if (!b->allocated) return;
  b->allocated = false;
  stats_.allocated -= b->size;
  // Merge the next free neighbour into this block, then this block into a free previous one.
  if (b->next >= 0 && !blocks_[static_cast<size_t>(b->next)].allocated) {
    const int64_t n = b->next;
    Block& nb = blocks_[static_cast<size_t>(n)];
    Pool(nb.small).erase({nb.size, n});
    b->size += nb.size;
    b->next = nb.next;
    if (nb.next >= 0) blocks_[static_cast<size_t>(nb.next)].prev = handle;
    nb.size = 0;
  }
  if (b->prev >= 0 && !blocks_[static_cast<size_t>(b->prev)].allocated) {
    const int64_t p = b->prev;
    Block& pb = blocks_[static_cast<size_t>(p)];
    Pool(pb.small).erase({pb.size, p});
    pb.size += b->size;
    pb.next = b->next;
    if (b->next >= 0) blocks_[static_cast<size_t>(b->next)].prev = p;
    b->size = 0;
    handle = p;
    b = &pb;
  }
  Pool(b->small).insert({b->size, handle});
}

bool CachingAllocator::ReleaseSegment(int segment) {
  Segment& seg = segments_[static_cast<size_t>(segment)];
  if (!seg.live) return false;
  for (size_t h = 0; h < blocks_.size(); ++h) {
    Block& b = blocks_[h];
    if (b.segment != segment || b.size == 0 || b.allocated) continue;
    if (!seg.expandable && (b.prev != -1 || b.next != -1)) return false;  // split: still in use
    if (seg.expandable) {
      if (b.next != -1) continue;  // only the free tail can be unmapped, in whole pages
      const int64_t page = seg.small ? kSmallBuffer : kLargeBuffer;
      const int64_t unmap = page * (b.size / page);
      if (unmap == 0) return false;
      Pool(b.small).erase({b.size, static_cast<int64_t>(h)});
      b.size -= unmap;
      seg.size -= unmap;
      stats_.reserved -= unmap;
      if (b.size > 0)
        Pool(b.small).insert({b.size, static_cast<int64_t>(h)});
      else if (b.prev >= 0)
        blocks_[static_cast<size_t>(b.prev)].next = -1;
      return true;
    }
    Pool(b.small).erase({b.size, static_cast<int64_t>(h)});
    stats_.reserved -= b.size;
    b.size = 0;
    seg.live = false;
    --stats_.segments;
    return true;
  }
  return false;
}

void CachingAllocator::ReleaseCached(int64_t at_least) {
  // Only blocks of at least max_split_size: the smallest that covers the request, else largest first.
  std::vector<std::pair<int64_t, int>> candidates;
  for (const Block& b : blocks_) {
    if (b.size > 0 && !b.allocated && b.prev == -1 && b.next == -1 && b.size >= *config_.max_split_size &&
        !segments_[static_cast<size_t>(b.segment)].expandable) {
      candidates.emplace_back(b.size, b.segment);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  auto fit = std::lower_bound(candidates.begin(), candidates.end(), std::make_pair(at_least, -1));
  if (fit != candidates.end()) {
    ReleaseSegment(fit->second);
    return;
  }
  int64_t freed = 0;
  for (auto it = candidates.rbegin(); it != candidates.rend() && freed < at_least; ++it) {
    if (ReleaseSegment(it->second)) freed += it->first;
  }
}

void CachingAllocator::GarbageCollect() {
  const auto target =
      static_cast<int64_t>(*config_.garbage_collection_threshold * static_cast<double>(limit_));
  for (size_t s = 0; s < segments_.size() && stats_.reserved > target; ++s)
    ReleaseSegment(static_cast<int>(s));
}

void CachingAllocator::EmptyCache() {
  for (size_t s = 0; s < segments_.size(); ++s) ReleaseSegment(static_cast<int>(s));
}

std::vector<std::pair<int64_t, bool>> CachingAllocator::Blocks(bool small_pool) const {
  std::vector<std::pair<int64_t, bool>> out;
  for (size_t s = 0; s < segments_.size(); ++s) {
    if (!segments_[s].live || segments_[s].small != small_pool) continue;
    std::vector<std::pair<int64_t, size_t>> in_seg;
    for (size_t h = 0; h < blocks_.size(); ++h) {
      if (blocks_[h].segment == static_cast<int>(s) && blocks_[h].size > 0)
        in_seg.emplace_back(blocks_[h].addr, h);
    }
    std::sort(in_seg.begin(), in_seg.end());
    for (const auto& [addr, h] : in_seg) out.emplace_back(blocks_[h].size, blocks_[h].allocated);
  }
  return out;
}

}  // namespace npugap::analysis::memory
