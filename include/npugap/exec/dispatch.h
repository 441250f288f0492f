// Type dispatch for kernels: calls f.template operator()<T>() for the C++ type of a DType.
// Kernels list the types they implement; any other dtype is reported as unsupported.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npugap/ir/dtype.h"
#include "npugap/ir/tensor.h"

namespace npugap::exec {

// Floating types computed natively (float16/bfloat16 are converted by the kernels that take them).
template <typename F>
bool DispatchFloat(ir::DType t, F&& f) {
  switch (t) {
    case ir::DType::kFloat32: f.template operator()<float>(); return true;
    case ir::DType::kFloat64: f.template operator()<double>(); return true;
    default: return false;
  }
}

template <typename F>
bool DispatchInteger(ir::DType t, F&& f) {
  switch (t) {
    case ir::DType::kInt8: f.template operator()<int8_t>(); return true;
    case ir::DType::kInt16: f.template operator()<int16_t>(); return true;
    case ir::DType::kInt32: f.template operator()<int32_t>(); return true;
    case ir::DType::kInt64: f.template operator()<int64_t>(); return true;
    case ir::DType::kUInt8: f.template operator()<uint8_t>(); return true;
    case ir::DType::kUInt16: f.template operator()<uint16_t>(); return true;
    case ir::DType::kUInt32: f.template operator()<uint32_t>(); return true;
    case ir::DType::kUInt64: f.template operator()<uint64_t>(); return true;
    default: return false;
  }
}

// float32, float64 and every integer type.
template <typename F>
bool DispatchNumeric(ir::DType t, F&& f) {
  return DispatchFloat(t, f) || DispatchInteger(t, f);
}

// Every fixed-size type: numeric, bool, float16 and bfloat16 as raw bits. For data movement
// kernels (Transpose, Gather, Concat, ...) that never look at the values. Dispatches on size.
template <typename F>
bool DispatchBySize(ir::DType t, F&& f) {
  switch (ir::DTypeSize(t)) {
    case 1: f.template operator()<uint8_t>(); return true;
    case 2: f.template operator()<uint16_t>(); return true;
    case 4: f.template operator()<uint32_t>(); return true;
    case 8: f.template operator()<uint64_t>(); return true;
    case 16: f.template operator()<__uint128_t>(); return true;
    default: return false;
  }
}

// DispatchBySize plus std::string for string tensors: for kernels that only move elements.
template <typename F>
bool DispatchMovable(ir::DType t, F&& f) {
  if (t == ir::DType::kString) {
    f.template operator()<std::string>();
    return true;
  }
  return DispatchBySize(t, f);
}

// Element pointer of a tensor for a type chosen by DispatchMovable: the raw buffer, or for
// T = std::string the out-of-line string vector.
template <typename T>
T* Elements(ir::Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return t.strings().data();
  } else {
    return t.data<T>();
  }
}
template <typename T>
const T* Elements(const ir::Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return t.strings().data();
  } else {
    return t.data<T>();
  }
}

}  // namespace npugap::exec
