// Element types. The numeric values equal ONNX TensorProto.DataType so import is a cast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace npugap::ir {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// Bytes per element; 0 for kUndefined and kString (strings are stored out of line).
size_t DTypeSize(DType t);
// Lower-case ONNX-style name: "float32", "int64", "bfloat16", ...
std::string_view DTypeName(DType t);
// True for the values npugap knows (the enum above); false for unknown integers from a file.
bool IsKnownDType(int32_t raw);
bool IsFloatingPoint(DType t);  // float16, bfloat16, float32, float64
bool IsInteger(DType t);        // signed and unsigned, not bool

// Stored type of float16 / bfloat16 elements: raw bits, converted by numerics/.
struct Float16Bits { uint16_t bits; };
struct BFloat16Bits { uint16_t bits; };

// Maps a C++ element type to its DType, for typed kernels.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<uint16_t> { static constexpr DType value = DType::kUInt16; };
template <> struct DTypeOf<uint32_t> { static constexpr DType value = DType::kUInt32; };
template <> struct DTypeOf<uint64_t> { static constexpr DType value = DType::kUInt64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<Float16Bits> { static constexpr DType value = DType::kFloat16; };
template <> struct DTypeOf<BFloat16Bits> { static constexpr DType value = DType::kBFloat16; };

}  // namespace npugap::ir
