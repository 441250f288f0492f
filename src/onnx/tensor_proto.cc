#include "npugap/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace npugap::onnx_import {
namespace fs = std::filesystem;
using ir::DType;
using ir::Tensor;

namespace {

// Copies a repeated proto field into the tensor, converting each element.
template <typename Dst, typename Field>
void CopyField(const Field& field, Tensor& t) {
  Dst* out = t.data<Dst>();
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Dst>(field.Get(i));
}

Status ReadExternal(const onnx::TensorProto& proto, const std::string& model_dir, Tensor& t) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const auto& kv : proto.external_data()) {
    if (kv.key() == "location") location = kv.value();
    if (kv.key() == "offset") offset = std::stoll(kv.value());
    if (kv.key() == "length") length = std::stoll(kv.value());
  }
  if (location.empty()) return Status::InvalidArgument(fmt::format("tensor '{}': external data without a location", proto.name()));
  // Only files inside the model's folder: a model must not read arbitrary files on the host.
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(model_dir.empty() ? "." : model_dir), ec);
  const fs::path file = fs::weakly_canonical(base / location, ec);
  const auto rel = file.lexically_relative(base);
  if (fs::path(location).is_absolute() || rel.empty() || *rel.begin() == "..") {
    return Status::InvalidArgument(fmt::format("tensor '{}': external data path '{}' escapes the model folder",
                                               proto.name(), location));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("tensor '{}': external data file '{}' not found", proto.name(), file.string()));
  const int64_t need = static_cast<int64_t>(t.nbytes());
  if (length >= 0 && length != need) {
    return Status::InvalidArgument(fmt::format("tensor '{}': external data length {} but shape needs {} bytes",
                                               proto.name(), length, need));
  }
  in.seekg(offset);
  in.read(static_cast<char*>(t.raw_data()), need);
  if (in.gcount() != need) {
    return Status::InvalidArgument(fmt::format("tensor '{}': external data file '{}' is shorter than offset {} + {} bytes",
                                               proto.name(), location, offset, need));
  }
  return Status::Ok();
}

}  // namespace

Expected<Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& model_dir) {
  const std::string name = proto.name().empty() ? "<unnamed>" : proto.name();
  if (!ir::IsKnownDType(proto.data_type()) || proto.data_type() == 0) {
    return Status::InvalidArgument(fmt::format("tensor '{}': unknown data_type {}", name, proto.data_type()));
  }
  const auto dtype = static_cast<DType>(proto.data_type());
  ir::Shape shape(proto.dims().begin(), proto.dims().end());
  auto created = Tensor::Create(dtype, shape);
  if (!created.ok()) return created.status().WithContext(fmt::format("tensor '{}'", name));
  Tensor t = std::move(created).value();
  const size_t n = static_cast<size_t>(t.numel());

  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    if (dtype == DType::kString) return Status::InvalidArgument(fmt::format("tensor '{}': external string data", name));
    NPUGAP_RETURN_IF_ERROR(ReadExternal(proto, model_dir, t));
    return t;
  }
  if (dtype == DType::kString) {
    if (static_cast<size_t>(proto.string_data_size()) != n) {
      return Status::InvalidArgument(fmt::format("tensor '{}': {} strings for shape {}", name, proto.string_data_size(),
                                                 ir::ShapeToString(shape)));
    }
    for (size_t i = 0; i < n; ++i) t.strings()[i] = proto.string_data(static_cast<int>(i));
    return t;
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != t.nbytes()) {
      return Status::InvalidArgument(fmt::format("tensor '{}': raw_data has {} bytes, shape {} of {} needs {}", name,
                                                 proto.raw_data().size(), ir::ShapeToString(shape),
                                                 ir::DTypeName(dtype), t.nbytes()));
    }
    if (n > 0) std::memcpy(t.raw_data(), proto.raw_data().data(), t.nbytes());
    return t;
  }
  auto field_size = [&]() -> size_t {
    switch (dtype) {
      case DType::kFloat32: return static_cast<size_t>(proto.float_data_size());
      case DType::kFloat64: return static_cast<size_t>(proto.double_data_size());
      case DType::kInt64: return static_cast<size_t>(proto.int64_data_size());
      case DType::kUInt32: case DType::kUInt64: return static_cast<size_t>(proto.uint64_data_size());
      case DType::kComplex64: return static_cast<size_t>(proto.float_data_size()) / 2;
      case DType::kComplex128: return static_cast<size_t>(proto.double_data_size()) / 2;
      default: return static_cast<size_t>(proto.int32_data_size());
    }
  }();
  if (field_size != n) {
    return Status::InvalidArgument(fmt::format("tensor '{}': {} values for shape {} ({} elements)", name, field_size,
                                               ir::ShapeToString(shape), n));
  }
  switch (dtype) {
    case DType::kFloat32: CopyField<float>(proto.float_data(), t); break;
    case DType::kFloat64: CopyField<double>(proto.double_data(), t); break;
    case DType::kInt64: CopyField<int64_t>(proto.int64_data(), t); break;
    case DType::kUInt32: CopyField<uint32_t>(proto.uint64_data(), t); break;
    case DType::kUInt64: CopyField<uint64_t>(proto.uint64_data(), t); break;
    case DType::kInt32: CopyField<int32_t>(proto.int32_data(), t); break;
    case DType::kInt16: CopyField<int16_t>(proto.int32_data(), t); break;
    case DType::kInt8: CopyField<int8_t>(proto.int32_data(), t); break;
    case DType::kUInt16: case DType::kFloat16: case DType::kBFloat16:
      CopyField<uint16_t>(proto.int32_data(), t);  // 16-bit floats travel as their bit patterns
      break;
    case DType::kUInt8: CopyField<uint8_t>(proto.int32_data(), t); break;
    case DType::kBool: CopyField<bool>(proto.int32_data(), t); break;
    case DType::kComplex64: CopyField<float>(proto.float_data(), t); break;
    case DType::kComplex128: CopyField<double>(proto.double_data(), t); break;
    default: return Status::Unsupported(fmt::format("tensor '{}': data_type {}", name, ir::DTypeName(dtype)));
  }
  return t;
}

void TensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto) {
  proto->Clear();
  proto->set_name(name);
  proto->set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t d : tensor.shape()) proto->add_dims(d);
  if (tensor.dtype() == DType::kString) {
    for (const auto& s : tensor.strings()) proto->add_string_data(s);
  } else {
    proto->set_raw_data(tensor.raw_data(), tensor.nbytes());
  }
}

Expected<Tensor> ReadTensorProtoFile(const std::string& path, std::string* name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("{}: no such file", path));
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&in)) return Status::InvalidArgument(fmt::format("{}: not a TensorProto file", path));
  if (name) *name = proto.name();
  auto t = TensorFromProto(proto, fs::path(path).parent_path().string());
  if (!t.ok()) return t.status().WithContext(path);
  return t;
}

}  // namespace npugap::onnx_import
