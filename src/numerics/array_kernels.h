// Internal: the instruction-set variants behind RoundArray / EncodeArray16 / DecodeArray16, and the
// CPU check that picks one (kernel_dispatch.cc). The AVX2 kernels are the library's baseline
// (-march=x86-64-v3); the AVX-512 ones are compiled for AVX-512 F/BW/VL/DQ/BF16 with a target
// pragma and must only be called where CpuHasAvx512() is true.
#pragma once

#include <cstdint>
#include <span>

#include "npugap/numerics/format.h"

namespace npugap::numerics::detail {

bool CpuHasAvx512();

RoundStats RoundArrayAvx2(Format f, std::span<float> values, const RoundingOptions& opt,
                          uint64_t first_index);
RoundStats RoundArrayAvx512(Format f, std::span<float> values, const RoundingOptions& opt,
                            uint64_t first_index);

// Element i of `in` uses stochastic index first_index + i.
void EncodeArray16Avx2(Format f, std::span<const float> in, std::span<uint16_t> out,
                       const RoundingOptions& opt, uint64_t first_index);
void EncodeArray16Avx512(Format f, std::span<const float> in, std::span<uint16_t> out,
                         const RoundingOptions& opt);
void DecodeArray16Avx512(Format f, std::span<const uint16_t> in, std::span<float> out);

// Outputs from this many bytes on are written with non-temporal stores (format_pack_avx512.cc):
// twice one core's 2 MiB L2, so an output that could still be read from cache keeps normal stores.
inline constexpr size_t kStreamingBytes = size_t{4} << 20;

}  // namespace npugap::numerics::detail
