#include "npugap/ir/tensor.h"

#include "npugap/ir/buffer_pool.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>

namespace npugap::ir {
namespace {

std::shared_ptr<std::byte[]> AllocateAligned(size_t bytes) { return AllocateBuffer(bytes); }

}  // namespace

Expected<int64_t> CheckedNumel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return Status::InvalidArgument(fmt::format("negative dimension in shape {}", ShapeToString(shape)));
    if (d != 0 && n > INT64_MAX / d) {
      return Status::InvalidArgument(fmt::format("element count of shape {} overflows 64 bits", ShapeToString(shape)));
    }
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

Expected<Tensor> Tensor::Create(DType dtype, Shape shape) {
  NPUGAP_ASSIGN_OR_RETURN(int64_t n, CheckedNumel(shape));
  const size_t elem = DTypeSize(dtype);
  if (dtype != DType::kString && elem == 0) {
    return Status::Unsupported(fmt::format("tensor of element type {}", DTypeName(dtype)));
  }
  if (elem != 0 && n > kMaxTensorBytes / static_cast<int64_t>(elem)) {
    return Status::InvalidArgument(fmt::format("tensor {}[{}] needs more than {} GiB", DTypeName(dtype),
                                               ShapeToString(shape), kMaxTensorBytes >> 30));
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = n;
  if (dtype == DType::kString) {
    t.strings_ = std::make_shared<std::vector<std::string>>(static_cast<size_t>(n));
    return t;
  }
  t.data_ = AllocateAligned(static_cast<size_t>(n) * elem);
  if (!t.data_) {
    return Status::InvalidArgument(fmt::format("cannot allocate {} bytes for a tensor of shape {}",
                                               static_cast<size_t>(n) * elem, ShapeToString(t.shape_)));
  }
  return t;
}

Expected<Tensor> Tensor::Zeros(DType dtype, Shape shape) {
  NPUGAP_ASSIGN_OR_RETURN(Tensor t, Create(dtype, std::move(shape)));
  if (t.data_) std::memset(t.data_.get(), 0, t.nbytes());
  return t;
}

Tensor Tensor::Empty(DType dtype, Shape shape) {
  auto t = Create(dtype, std::move(shape));
  if (!t.ok()) throw std::bad_alloc();  // callers validated the shape; only memory can fail here
  return std::move(t).value();
}

Tensor Tensor::Scalar(float v) {
  Tensor t = Empty(DType::kFloat32, {});
  *t.data<float>() = v;
  return t;
}

Tensor Tensor::Reshaped(Shape shape) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  assert(CheckedNumel(t.shape_).ok() && CheckedNumel(t.shape_).value() == numel_);
  return t;
}

Tensor Tensor::Clone() const {
  Tensor t = Empty(dtype_, shape_);
  if (dtype_ == DType::kString) {
    *t.strings_ = *strings_;
  } else if (nbytes() > 0) {
    std::memcpy(t.data_.get(), data_.get(), nbytes());
  }
  return t;
}

}  // namespace npugap::ir
