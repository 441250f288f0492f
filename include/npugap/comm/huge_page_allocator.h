// An allocator for the flow simulator's large arrays (a 16,384-rank schedule, the flow, link and
// per-rank records: tens of MB read in random order). Blocks of 2 MiB or more are aligned to
// 2 MiB and marked MADV_HUGEPAGE, so that the kernel backs them with transparent huge pages where
// it allows them (the default "madvise" mode gives huge pages only to regions that ask): one TLB
// entry then covers 512 times what a 4 KiB page does, and the random reads of the event loop stop
// paying a page walk each. Smaller blocks, and systems that refuse the advice, get ordinary memory;
// what is stored, and so every simulated result, is the same either way.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace npugap::comm {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) return static_cast<T*>(::operator new(bytes, std::align_val_t(alignof(T))));
    const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a refusal leaves ordinary pages
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePageBytes)
      ::operator delete(p, std::align_val_t(alignof(T)));
    else
      std::free(p);
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

// A vector whose large buffers sit on huge pages.
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace npugap::comm
