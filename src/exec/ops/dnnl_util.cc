#include "dnnl_util.h"

#include <omp.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <unordered_map>

namespace npugap::exec::dnnl_util {
namespace {

using dnnl::memory;

constexpr const char* kUnimplementedMarker = "oneDNN has no implementation";
constexpr size_t kMaxCacheEntries = 4096;
// Packed weights (plus the source tensors they keep alive) above this make the cache start
// over, so a process that loads model after model does not grow without bound.
constexpr int64_t kMaxPackedBytes = int64_t{4} << 30;

std::atomic<int64_t> g_packed_bytes{0};

struct KeyHash {
  size_t operator()(const CacheKey& key) const {
    size_t h = std::hash<const void*>()(key.node) ^ (static_cast<size_t>(key.kind) * 0x9e3779b97f4a7c15ULL);
    for (int64_t v : key.values) h = (h ^ static_cast<size_t>(v)) * 0x100000001b3ULL;
    return h;
  }
};

struct Cache {
  std::mutex mutex;
  std::unordered_map<CacheKey, std::shared_ptr<CacheEntry>, KeyHash> entries;
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: entries may outlive static teardown
  return *cache;
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

struct ScratchSlot {
  std::unique_ptr<void, AlignedFree> data;
  size_t capacity = 0;
};

}  // namespace

dnnl::engine& Engine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& Stream() {
  static dnnl::stream* stream = new dnnl::stream(Engine());
  return *stream;
}

memory::dims ToDims(const ir::Shape& shape) { return memory::dims(shape.begin(), shape.end()); }

memory::format_tag PlainTag(size_t rank) {
  using tag = memory::format_tag;
  switch (rank) {
    case 1:
      return tag::a;
    case 2:
      return tag::ab;
    case 3:
      return tag::abc;
    case 4:
      return tag::abcd;
    case 5:
      return tag::abcde;
    case 6:
      return tag::abcdef;
    default:
      return tag::undef;
  }
}

memory::format_tag Blocked16Tag(size_t rank) {
  using tag = memory::format_tag;
  switch (rank) {
    case 3:
      return tag::nCw16c;
    case 4:
      return tag::nChw16c;
    case 5:
      return tag::nCdhw16c;
    default:
      return tag::undef;
  }
}

memory Wrap(const memory::desc& md, const void* data) {
  return memory(md, Engine(), const_cast<void*>(data));
}

void* Scratch(int slot, size_t bytes) noexcept {
  thread_local ScratchSlot slots[3];
  ScratchSlot& s = slots[slot];
  if (s.capacity < bytes) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    s.data.reset(std::aligned_alloc(64, rounded));
    s.capacity = s.data ? rounded : 0;
  }
  return s.data.get();
}

PackedWeights::~PackedWeights() { g_packed_bytes -= bytes_; }

memory PackedWeights::Get(const ir::Tensor& weights, const memory::desc& user_md,
                          const memory::desc& packed_md) {
  if (user_md == packed_md) return Wrap(user_md, weights.raw_data());
  std::lock_guard<std::mutex> lock(mutex_);
  if (!packed_ || !source_.SharesBufferWith(weights)) {
    memory packed(packed_md, Engine());
    memory user = Wrap(user_md, weights.raw_data());
    dnnl::reorder(user, packed).execute(Stream(), user, packed);
    Stream().wait();
    packed_ = packed;
    source_ = weights;
    const int64_t bytes = static_cast<int64_t>(packed_md.get_size() + weights.nbytes());
    g_packed_bytes += bytes - bytes_;
    bytes_ = bytes;
  }
  return packed_;
}

Expected<std::shared_ptr<CacheEntry>> GetOrCreate(
    CacheKey key, const std::function<Expected<std::shared_ptr<CacheEntry>>()>& make) {
  key.Add(omp_get_max_threads());
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) return it->second;
  }
  Expected<std::shared_ptr<CacheEntry>> made = make();
  if (!made.ok()) return made.status();
  std::lock_guard<std::mutex> lock(cache.mutex);
  if (cache.entries.size() >= kMaxCacheEntries || g_packed_bytes.load() > kMaxPackedBytes)
    cache.entries.clear();
  auto [it, inserted] = cache.entries.emplace(std::move(key), made.value());
  return it->second;
}

size_t CacheSize() {
  std::lock_guard<std::mutex> lock(TheCache().mutex);
  return TheCache().entries.size();
}

void ClearCache() {
  std::lock_guard<std::mutex> lock(TheCache().mutex);
  TheCache().entries.clear();
}

Status Guard(const KernelContext& ctx, const std::function<Status()>& fn) {
  try {
    return fn();
  } catch (const dnnl::error& e) {
    if (e.status == dnnl_unimplemented) {
      return Status::Unsupported(ctx.Error(std::string(kUnimplementedMarker) + ": " + e.what()).message());
    }
    return Status::Internal(ctx.Error(std::string("oneDNN: ") + e.what()).message());
  } catch (const std::bad_alloc&) {
    return ctx.Error("out of memory");
  }
}

bool IsUnimplemented(const Status& status) {
  return status.code() == StatusCode::kUnsupported &&
         status.message().find(kUnimplementedMarker) != std::string::npos;
}

}  // namespace npugap::exec::dnnl_util
