// Conversion between onnx::TensorProto and ir::Tensor (typed fields, raw_data, external data).
#pragma once

#include <string>

#include "npugap/base/status.h"
#include "npugap/ir/tensor.h"

namespace onnx {
class TensorProto;
}

namespace npugap::onnx_import {

// `model_dir` resolves external data; a location that escapes it is an error.
Expected<ir::Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& model_dir);
void TensorToProto(const ir::Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

// Reads one serialized TensorProto file (the backend tests' input_K.pb / output_K.pb).
Expected<ir::Tensor> ReadTensorProtoFile(const std::string& path, std::string* name = nullptr);

}  // namespace npugap::onnx_import
