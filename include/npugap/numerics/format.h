// Number formats of the precision emulator: what a value becomes when an Ascend unit stores or
// reads it in a narrower format. Every conversion is "quantize-dequantize": float32 in, the nearest
// representable value (by the chosen rounding) back as float32, plus counts of what went wrong
// (overflow, flush to zero, NaN), which the precision analysis reports per tensor.
//
// Scalar functions are the reference; the array functions are vectorised for AVX2
// (format_array.cc) and AVX-512 (format_array_avx512.cc) and tested against them bit for bit.
// docs/numerics.md states every assumption (HF32's rounding, HiFloat8's decoding), with its source.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace npugap::numerics {

enum class Format : uint8_t {
  kFP32,     // IEEE binary32: identity
  kHF32,     // Ascend HF32: FP32 range, 11-bit significand (10 stored bits); layout unpublished
  kFP16,     // IEEE binary16
  kBF16,     // bfloat16
  kFP8E4M3,  // OCP FP8 E4M3 (max 448, no inf, one NaN pattern per sign)
  kFP8E5M2,  // OCP FP8 E5M2 (IEEE-like, inf and NaN)
  kHiF8,     // HiFloat8 (arXiv 2409.16626), tapered dot-coded exponent
};
inline constexpr Format kAllFormats[] = {Format::kFP32,    Format::kHF32,    Format::kFP16, Format::kBF16,
                                         Format::kFP8E4M3, Format::kFP8E5M2, Format::kHiF8};

enum class Rounding : uint8_t {
  kNearestEven,  // IEEE default (RNE)
  kTowardZero,   // truncation
  kHalfAway,     // round half away from zero (HiF8 "TA")
  kStochastic,   // probability proportional to distance; counter-based RNG from seed + index
};

enum class Overflow : uint8_t {
  kIeee,        // out of range -> ±inf (or NaN where the format has no inf), NaN stays NaN
  kSaturation,  // out of range and ±inf -> ±max finite, NaN -> 0 (Ascend 910 / 310P default)
};

enum class Subnormals : uint8_t { kKeep, kFlush };

struct RoundingOptions {
  Rounding rounding = Rounding::kNearestEven;
  Overflow overflow = Overflow::kIeee;
  Subnormals subnormals = Subnormals::kKeep;
  uint64_t seed = 0;  // stochastic rounding only; element i of an array uses (seed, i)
};

// What rounding did to an array; the precision analysis reports these per tensor.
struct RoundStats {
  int64_t overflow = 0;   // finite inputs beyond the format's range (became inf/NaN or were saturated)
  int64_t inf_nan = 0;    // outputs that are inf or NaN
  int64_t saturated = 0;  // outputs clamped to ±max (saturation mode), NaN->0 included
  int64_t flushed = 0;    // non-zero inputs that became zero (underflow or flushed subnormals)
  RoundStats& operator+=(const RoundStats& o) {
    overflow += o.overflow;
    inf_nan += o.inf_nan;
    saturated += o.saturated;
    flushed += o.flushed;
    return *this;
  }
};

struct FormatInfo {
  std::string_view name;  // "fp32", "hf32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "hif8"
  int bits;               // storage bits (32 for hf32: it is held in fp32 registers)
  int significand_bits;   // including the implicit bit (fp16: 11); hif8: the widest (4)
  double max_finite;
  double min_normal;
  double min_subnormal;  // smallest positive value (hif8: 2^-22)
  bool has_inf;
};
const FormatInfo& Info(Format f);
std::optional<Format> ParseFormat(std::string_view name);  // the names above; also "float16", "bfloat16"

// ---- scalar reference ----------------------------------------------------------------------
// Encodes to the format's bit pattern (low `bits` bits; fp32/hf32: the float32 pattern) and back.
uint32_t Encode(Format f, float x, const RoundingOptions& opt = {}, uint64_t index = 0);
float Decode(Format f, uint32_t bits);
// Decode(Encode(x)); `stats` (optional) counts what happened to this one value.
float RoundScalar(Format f, float x, const RoundingOptions& opt = {}, uint64_t index = 0,
                  RoundStats* stats = nullptr);

// ---- arrays (vectorised; tested against the scalar reference) --------------------------------
// The instruction set of the array kernels. kAuto: the widest this CPU runs, AVX-512 where it has
// AVX-512 F, BW, VL, DQ and BF16, else AVX2 (the library's baseline). Every path gives the same
// bits and counts; tests and benchmarks name one to compare them. A path the CPU lacks runs AVX2.
enum class KernelPath : uint8_t { kAuto, kAvx2, kAvx512 };
bool KernelPathAvailable(KernelPath path);
// What kAuto stands for in this process from now on (kAuto: the CPU's widest again). For
// benchmarks that compare the paths inside code that does not pass one (the emulator).
void SetAutoKernelPath(KernelPath path);

// In place: every value becomes its rounded float32 value. Element i uses index `first_index + i`
// for stochastic rounding, so splitting an array into chunks gives the same result.
RoundStats RoundArray(Format f, std::span<float> values, const RoundingOptions& opt = {},
                      uint64_t first_index = 0, KernelPath path = KernelPath::kAuto);
RoundStats RoundArrayScalar(Format f, std::span<float> values, const RoundingOptions& opt = {},
                            uint64_t first_index = 0);
// Packing for storage and file output: float32 <-> 16-bit patterns (fp16/bf16) and 8-bit ones.
// On the AVX-512 path, outputs of 4 MiB and more are written with non-temporal stores (they bypass
// the caches: such an output is written for later, not read back at once); the AVX2 path does not.
void EncodeArray16(Format f, std::span<const float> in, std::span<uint16_t> out,
                   const RoundingOptions& opt = {}, KernelPath path = KernelPath::kAuto);
void DecodeArray16(Format f, std::span<const uint16_t> in, std::span<float> out,
                   KernelPath path = KernelPath::kAuto);
void EncodeArray8(Format f, std::span<const float> in, std::span<uint8_t> out,
                  const RoundingOptions& opt = {});
void DecodeArray8(Format f, std::span<const uint8_t> in, std::span<float> out);

// ---- INT8 with scale and zero point ----------------------------------------------------------
// q = clamp(round(x / scale) + zero_point, -128, 127); x' = (q - zero_point) * scale.
// Per tensor: one scale; per channel: scale[c] for index c along `axis` of `shape`.
struct Int8Params {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;  // empty: 0
  int axis = -1;                    // -1: per tensor
  bool symmetric = true;            // for the calibration helper below
};
// Picks per-tensor / per-channel scales from the max |x| (symmetric) or min/max (asymmetric).
Int8Params CalibrateInt8(std::span<const float> x, std::span<const int64_t> shape, int axis, bool symmetric);
RoundStats QuantizeDequantizeInt8(std::span<float> x, std::span<const int64_t> shape, const Int8Params& p,
                                  Rounding rounding = Rounding::kNearestEven);

}  // namespace npugap::numerics
