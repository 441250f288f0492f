// A dense tensor: element type, shape and a reference-counted buffer.
// Copies share the buffer (like an OrtValue), so aliasing ops (Reshape, Identity, Squeeze)
// are free. Kernels must never write into an input's buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/dtype.h"

namespace npugap::ir {

using Shape = std::vector<int64_t>;

// Product of dims, or an error when a dim is negative or the product overflows int64.
Expected<int64_t> CheckedNumel(const Shape& shape);
std::string ShapeToString(const Shape& shape);  // "1x3x224x224", "scalar" for rank 0

class Tensor {
 public:
  Tensor() = default;

  // Allocates an uninitialised tensor. Fails on overflow or an allocation over the limit.
  static Expected<Tensor> Create(DType dtype, Shape shape);
  // Same, zero-filled.
  static Expected<Tensor> Zeros(DType dtype, Shape shape);
  // Asserting versions for shapes already validated (kernels after shape checks).
  static Tensor Empty(DType dtype, Shape shape);
  template <typename T>
  static Tensor FromVector(Shape shape, const std::vector<T>& values);
  static Tensor Scalar(float v);

  // Shares the buffer with a new shape of the same element count.
  Tensor Reshaped(Shape shape) const;
  // Deep copy.
  Tensor Clone() const;

  bool defined() const { return dtype_ != DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[static_cast<size_t>(i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * DTypeSize(dtype_); }

  void* raw_data() { return data_.get(); }
  const void* raw_data() const { return data_.get(); }
  template <typename T> T* data() { return static_cast<T*>(raw_data()); }
  template <typename T> const T* data() const { return static_cast<const T*>(raw_data()); }
  template <typename T> std::span<T> span() { return {data<T>(), static_cast<size_t>(numel_)}; }
  template <typename T> std::span<const T> span() const {
    return {data<T>(), static_cast<size_t>(numel_)};
  }

  // String tensors keep their elements here instead of the raw buffer.
  std::vector<std::string>& strings() { return *strings_; }
  const std::vector<std::string>& strings() const { return *strings_; }

  // True when both tensors share one buffer (used by tests of aliasing ops).
  bool SharesBufferWith(const Tensor& other) const { return data_ && data_ == other.data_; }

 private:
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<std::byte[]> data_;
  std::shared_ptr<std::vector<std::string>> strings_;
};

// Largest single tensor npugap allocates (bytes); bigger requests fail with an error
// instead of an out-of-memory crash.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 36;  // 64 GiB

template <typename T>
Tensor Tensor::FromVector(Shape shape, const std::vector<T>& values) {
  Tensor t = Empty(DTypeOf<T>::value, std::move(shape));
  assert(static_cast<int64_t>(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

}  // namespace npugap::ir
