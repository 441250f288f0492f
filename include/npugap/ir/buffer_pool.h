// Process-wide cache of large tensor buffers. glibc serves blocks above its mmap threshold
// (at most 32 MiB) with a fresh mmap and returns them with munmap, so every run of a model
// paid a page fault per 4 KiB of each large activation: 20 ms of a 28 ms 1x1 convolution
// (mobilenet_v2, batch 8). Freed blocks of 1 MiB and more are kept here, keyed by their
// rounded size, and handed out again to requests of the same rounded size, as ONNX Runtime's
// arena and PyTorch's caching allocator do. The cache holds at most kMaxCachedBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace npugap::ir {

struct BufferPoolStats {
  int64_t cached_bytes = 0;  // held for reuse now
  int64_t hits = 0;          // requests served from the cache
  int64_t misses = 0;        // large requests that went to the system allocator
};

// Alignment of every tensor buffer: a cache line, and what AVX-512 loads like.
inline constexpr size_t kBufferAlignment = 64;
// Requests from this size up go through the cache.
inline constexpr size_t kPooledMinBytes = size_t{1} << 20;
// Upper bound of the bytes the cache keeps; beyond it freed blocks go back to the system.
inline constexpr size_t kMaxCachedBytes = size_t{2} << 30;

// An uninitialised, kBufferAlignment-aligned buffer of at least `bytes` bytes (null when the
// system is out of memory). Thread-safe.
std::shared_ptr<std::byte[]> AllocateBuffer(size_t bytes);

BufferPoolStats GetBufferPoolStats();
// Returns every cached block to the system.
void ReleaseCachedBuffers();

}  // namespace npugap::ir
