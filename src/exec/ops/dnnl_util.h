// oneDNN plumbing shared by the nn kernels: the process-wide engine and stream, a cache of
// created primitives with their pre-packed weights, and small conversions.
//
// Kernels are stateless function pointers, so everything they want to keep between runs of a
// model (a created primitive, the weights reordered into the primitive's preferred layout)
// lives in the cache here, keyed by the node, the input shapes, the op's parameters and the
// OpenMP thread count (oneDNN picks its blocking for the thread count at creation time).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/exec/kernel.h"
#include "npugap/ir/tensor.h"

namespace npugap::exec::dnnl_util {

// One CPU engine and one stream per process. CPU streams execute synchronously in the calling
// thread, so sharing one between threads is safe.
dnnl::engine& Engine();
dnnl::stream& Stream();

dnnl::memory::dims ToDims(const ir::Shape& shape);
// Row-major tag of a rank (a, ab, abc, ...); rank 1..6.
dnnl::memory::format_tag PlainTag(size_t rank);
// Channel-blocked tag (nCw16c, nChw16c, nCdhw16c) for activations of rank 3..5.
dnnl::memory::format_tag Blocked16Tag(size_t rank);

// A oneDNN memory over an existing buffer. oneDNN wants a non-const pointer even for inputs;
// primitives never write into their src / weights / bias arguments.
dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data);

// Per-thread scratch buffers for activations reordered into / out of blocked layouts. `slot`
// 0..2 are independent; a buffer stays valid until the next call with the same slot on the
// same thread. 64-byte aligned; nullptr when the allocation fails.
void* Scratch(int slot, size_t bytes) noexcept;

// The cache key: node identity, an op-specific kind, and every number the primitive depends
// on (shapes, strides, pads, ...). The thread count is added by the cache.
struct CacheKey {
  const void* node = nullptr;
  int kind = 0;
  std::vector<int64_t> values;

  void Add(int64_t v) { values.push_back(v); }
  void Add(const std::vector<int64_t>& v) {
    values.push_back(static_cast<int64_t>(v.size()));
    values.insert(values.end(), v.begin(), v.end());
  }
  bool operator==(const CacheKey& other) const = default;
};

// Weights reordered into a primitive's layout, with the tensor they came from. Holding that
// tensor keeps its buffer alive, so a buffer address seen again really is the same tensor
// (kernels never write into inputs, so the data is unchanged too); a different tensor is
// reordered again.
class PackedWeights {
 public:
  PackedWeights() = default;
  PackedWeights(const PackedWeights&) = delete;
  PackedWeights& operator=(const PackedWeights&) = delete;
  ~PackedWeights();

  // The weights in `packed_md`, reordering `weights` (laid out as `user_md`) when they are not
  // the tensor packed last time. No copy when the two descriptors are equal.
  dnnl::memory Get(const ir::Tensor& weights, const dnnl::memory::desc& user_md,
                   const dnnl::memory::desc& packed_md);

 private:
  std::mutex mutex_;
  ir::Tensor source_;
  dnnl::memory packed_;
  int64_t bytes_ = 0;  // counted in the cache's budget
};

// Base of every cached entry (a primitive plus whatever the kernel keeps with it).
struct CacheEntry {
  virtual ~CacheEntry() = default;
};

// Returns the entry for `key`, creating it with `make` on a miss. Thread-safe; `make` runs
// outside the lock (two threads may both create; one result is kept). The cache is cleared
// when it grows past a few thousand entries (the entries in use stay alive through their
// shared_ptr).
Expected<std::shared_ptr<CacheEntry>> GetOrCreate(
    CacheKey key, const std::function<Expected<std::shared_ptr<CacheEntry>>()>& make);

template <typename Entry, typename Make>
Expected<std::shared_ptr<Entry>> GetOrCreateAs(CacheKey key, Make&& make) {
  auto erased = GetOrCreate(std::move(key), [&]() -> Expected<std::shared_ptr<CacheEntry>> {
    Expected<std::shared_ptr<Entry>> made = make();
    if (!made.ok()) return made.status();
    return std::shared_ptr<CacheEntry>(std::move(made).value());
  });
  if (!erased.ok()) return erased.status();
  return std::static_pointer_cast<Entry>(std::move(erased).value());
}

// Number of cached entries (for tests) and a way to drop them all.
size_t CacheSize();
void ClearCache();

// Runs `fn` (returning Status), turning a oneDNN exception into an error status of this node:
// kUnsupported when oneDNN has no implementation, kInternal otherwise.
Status Guard(const KernelContext& ctx, const std::function<Status()>& fn);

// True when a status came from oneDNN having no implementation (callers fall back to C++).
bool IsUnimplemented(const Status& status);

}  // namespace npugap::exec::dnnl_util
