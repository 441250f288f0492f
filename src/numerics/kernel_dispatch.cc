// The public array functions: each picks the AVX-512 or the AVX2 kernel (KernelPath), checking
// the CPU once. The library itself is compiled for x86-64-v3, so AVX2 is always there.
#include <algorithm>
#include <atomic>

#include "array_kernels.h"
#include "npugap/numerics/format.h"

namespace npugap::numerics {

bool detail::CpuHasAvx512() {
  static const bool has = [] {
    __builtin_cpu_init();  // needed where the first call comes from a static initializer
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bf16");
  }();
  return has;
}

namespace {
std::atomic<KernelPath> auto_path{KernelPath::kAuto};

bool UseAvx512(KernelPath path) {
  if (path == KernelPath::kAuto) path = auto_path.load(std::memory_order_relaxed);
  return path != KernelPath::kAvx2 && detail::CpuHasAvx512();
}
}  // namespace

void SetAutoKernelPath(KernelPath path) { auto_path.store(path, std::memory_order_relaxed); }

bool KernelPathAvailable(KernelPath path) { return path != KernelPath::kAvx512 || detail::CpuHasAvx512(); }

RoundStats RoundArray(Format f, std::span<float> values, const RoundingOptions& opt, uint64_t first_index,
                      KernelPath path) {
  return UseAvx512(path) ? detail::RoundArrayAvx512(f, values, opt, first_index)
                         : detail::RoundArrayAvx2(f, values, opt, first_index);
}

void EncodeArray16(Format f, std::span<const float> in, std::span<uint16_t> out, const RoundingOptions& opt,
                   KernelPath path) {
  if (UseAvx512(path)) return detail::EncodeArray16Avx512(f, in, out, opt);
  detail::EncodeArray16Avx2(f, in, out, opt, 0);
}

void DecodeArray16(Format f, std::span<const uint16_t> in, std::span<float> out, KernelPath path) {
  if (UseAvx512(path)) return detail::DecodeArray16Avx512(f, in, out);
  const size_t n = std::min(in.size(), out.size());
  for (size_t i = 0; i < n; ++i) out[i] = Decode(f, in[i]);
}

}  // namespace npugap::numerics
