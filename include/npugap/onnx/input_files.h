// Resolves `--inputs` arguments into one tensor per graph input: a test_data_set folder
// (input_K.pb), .pb files, .npy files (in order) and .npz archives (by input name when every
// array name matches an input, else in order).
#pragma once

#include <string>
#include <vector>

#include "npugap/base/status.h"
#include "npugap/ir/graph.h"

namespace npugap::onnx_import {

Expected<std::vector<ir::Tensor>> LoadInputFiles(const ir::Graph& graph, const std::vector<std::string>& paths);

}  // namespace npugap::onnx_import
