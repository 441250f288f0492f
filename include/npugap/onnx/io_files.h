// Reading and writing tensors in the files users have: ONNX TensorProto .pb (the backend tests'
// test_data_set layout), NumPy .npy and .npz. Writers never leave a partial file behind.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/tensor.h"

namespace npugap::onnx_import {

// Reads DIR/<prefix>_0.pb, DIR/<prefix>_1.pb, ... until one is missing.
Expected<std::vector<ir::Tensor>> ReadTensorProtoDir(const std::string& dir, const std::string& prefix);

Expected<ir::Tensor> ReadNpy(const std::string& path);
// Arrays of an .npz archive (stored or deflated), with their names (".npy" stripped), in file order.
Expected<std::vector<std::pair<std::string, ir::Tensor>>> ReadNpz(const std::string& path);
// Writes via a temporary file renamed into place.
Status WriteNpy(const std::string& path, const ir::Tensor& tensor);
// Writes bytes to path via a temporary file renamed into place.
Status WriteFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace npugap::onnx_import
